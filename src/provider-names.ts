// Every web source the plugin knows, in one table: the name settings, flags and eval files use,
// the name a user reads on an outside row (`Outside vault · Brave · ephemeral`), and the name of
// the choice where one source has two endpoints (the settings toggles, the panel's menu). Labels
// in evidence/labels.ts, the menus in ui/ and the CLI all read from here, so they cannot drift.

export const PROVIDER_NAMES = {
  brave: { label: "Brave", choice: "Brave" },
  "brave-web": { label: "Brave", choice: "Brave Web" },
  exa: { label: "Exa", choice: "Exa" },
} as const satisfies Record<string, { label: string; choice: string }>;

export type ProviderName = keyof typeof PROVIDER_NAMES;

/** The settings names, in the order the settings offer them. */
export const providerNames = Object.keys(PROVIDER_NAMES) as [ProviderName, ...ProviderName[]];

/** Whether a string is one of the names above. */
export function isProviderName(name: string): name is ProviderName {
  return Object.prototype.hasOwnProperty.call(PROVIDER_NAMES, name);
}
