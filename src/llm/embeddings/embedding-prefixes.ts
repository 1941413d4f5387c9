// Some embedding models were trained with a task prefix on every input and are measurably worse
// without it. The prefix depends on the model, not the server, so Ollama and OpenAI-compatible
// clients share this table. Models not listed get no prefix.

export interface EmbeddingPrefixes {
  document: string;
  query: string;
}

const NONE: EmbeddingPrefixes = { document: "", query: "" };

/** Matched against the model name as configured (`nomic-embed-text:latest`, `text-embedding-nomic-embed-text-v1.5`). */
const TABLE: { pattern: RegExp; prefixes: EmbeddingPrefixes }[] = [
  // https://huggingface.co/nomic-ai/nomic-embed-text-v1.5 — "search_document: " / "search_query: ".
  { pattern: /nomic-embed-text/i, prefixes: { document: "search_document: ", query: "search_query: " } },
  // mxbai-embed-large and snowflake-arctic-embed prefix queries only.
  {
    pattern: /mxbai-embed-large|snowflake-arctic-embed/i,
    prefixes: { document: "", query: "Represent this sentence for searching relevant passages: " },
  },
  // The e5 family: "passage: " / "query: ".
  { pattern: /(^|[/:-])e5-|multilingual-e5/i, prefixes: { document: "passage: ", query: "query: " } },
];

export function embeddingPrefixes(model: string): EmbeddingPrefixes {
  return TABLE.find((row) => row.pattern.test(model))?.prefixes ?? NONE;
}
