// The flags of the commands that share them, and reading the web-search ones: light on purpose
// (settings and the parser only), so the command table and help load without any command.
import { externalModes, freshnessProblem, freshnessSchema, providerNames, type ExternalMode, type Freshness, type ProviderName, type Settings } from "../settings";
import { flag, flagAll, intFlag, UsageError, valueShown, type FlagSpecs, type ParsedArgs } from "./args";

export const RESEARCH_FLAGS: FlagSpecs = {
  "external-search": { value: true },
  "external-provider": { value: true, repeat: true },
  "external-freshness": { value: true },
  "external-count": { value: true },
  "retrieval-only": { value: false },
  "read-pages": { value: true },
  level: { value: true },
  embed: { value: true },
  replay: { value: true },
  model: { value: true },
  "no-trace": { value: false },
};

/** The search dial's flags (search, research, compare takes --embed only). */
export const DIAL_FLAGS: FlagSpecs = {
  level: { value: true },
  embed: { value: true },
};

/** Parsed research options shared by `research` and `eval`. */
export interface ResearchCliOptions {
  mode: ExternalMode;
  /** The providers named with --external-provider, else the settings'. */
  providers: ProviderName[];
  /** Only those named with --external-provider ([] for none): what provider-choice.ts starts from. */
  namedProviders: ProviderName[];
  freshness: Freshness;
  count?: number;
  /** Outside pages to read, 0–5 (`--read-pages`; default: the settings'). */
  readPages?: number;
}

export function readExternalFlags(args: ParsedArgs, settings: Settings): ResearchCliOptions {
  const modeRaw = flag(args, "external-search") ?? "never";
  if (!(externalModes as readonly string[]).includes(modeRaw)) throw new UsageError(`--external-search must be one of ${externalModes.join(", ")} (got ${valueShown(modeRaw)}).`);
  const providers = flagAll(args, "external-provider");
  for (const p of providers) {
    if (!(providerNames as readonly string[]).includes(p)) throw new UsageError(`Unknown provider ${valueShown(p)}. Providers: ${providerNames.join(", ")}.`);
  }
  const freshnessRaw = flag(args, "external-freshness") ?? settings.external.freshness;
  const freshness = freshnessSchema.safeParse(freshnessRaw);
  if (!freshness.success) throw new UsageError(`--external-freshness ${freshnessProblem(freshnessRaw)} (got ${valueShown(freshnessRaw)}).`);
  return {
    mode: modeRaw as ExternalMode,
    providers: providers.length > 0 ? (providers as ProviderName[]) : settings.external.providers,
    namedProviders: providers as ProviderName[],
    freshness: freshness.data,
    count: intFlag(args, "external-count", 1, 10),
    readPages: intFlag(args, "read-pages", 0, 5),
  };
}

/** Flags of `eval` besides the common ones (--vault, --config, --cache-dir, --json). */
export const EVAL_FLAGS: FlagSpecs = {
  file: { value: true },
  replay: { value: true },
  "read-pages": { value: true },
};
