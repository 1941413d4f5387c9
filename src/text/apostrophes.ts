// A phone types ’ where a keyboard types ': both mean the same apostrophe, so the plan, the
// index's query and the answer check read them alike ("it’s" is "it's", "O’Reilly" is "O'Reilly").

/** ’ and ‘ as '. */
export function straightApostrophes(text: string): string {
  return text.replace(/[’‘]/g, "'");
}
