// Typing into a row of the settings tab as a user does: the value, an input event, then a turn for
// the tab's handler to save it.
export async function typeInto(setting: (name: string) => HTMLElement, name: string, value: string): Promise<HTMLInputElement> {
  const input = setting(name).querySelector("input")!;
  input.value = value;
  input.dispatchEvent(new Event("input"));
  await new Promise((r) => setTimeout(r, 0));
  return input;
}
