// A small vault indexed and embedded against the stand-in embedding server on 127.0.0.1: the
// setting of every test of the dial's vector levels (search, research retrieval, eval per level).
import { EmbeddingJob } from "../../src/index/embeddings/embedding-job";
import { VectorStore } from "../../src/index/embeddings/vector-store";
import { VaultIndex } from "../../src/index/vault-index";
import { ollamaEmbeddingModel } from "../../src/llm/embeddings/ollama-embedding";
import type { EmbeddingModel } from "../../src/llm/embeddings/embedding-model";
import { fetchHttp, startStandInServer, type StandInServer } from "../llm/embeddings/stand-in-embedding-server";
import { MemoryNoteStore } from "./memory-note-store";

export interface EmbeddedVault {
  server: StandInServer;
  store: MemoryNoteStore;
  index: VaultIndex;
  vectors: VectorStore;
}

/** The stand-in's Ollama embedding client: no rate cap, a short timeout. */
export function standInEmbedder(server: StandInServer): EmbeddingModel {
  return ollamaEmbeddingModel({ http: fetchHttp, model: "nomic-embed-text", baseUrl: server.base, requestsPerSecond: 0, timeoutMs: 5000 });
}

/** Starts the stand-in, indexes `notes` and embeds every one of them. Close `server` when done. */
export async function embeddedVault(notes: Record<string, string>, dimensions: number): Promise<EmbeddedVault> {
  const server = await startStandInServer({ dimensions });
  const store = new MemoryNoteStore(notes);
  const index = new VaultIndex();
  await index.sync(store, null);
  const vectors = new VectorStore();
  await new EmbeddingJob({ store: vectors, embedder: standInEmbedder(server), notes: store }).run(index.paths().map((p) => index.note(p)!));
  return { server, store, index, vectors };
}
