// A vault indexed as `npm run eval:search` and `eval:judge` have it (bench/eval-sets.ts): its
// language learned before the first question, once for all the sets asked of it. Scored while the
// lane was still learning, the floors' figures depended on the machine's speed and differed from
// the evaluations' (corpora search 0.919 / 0.751 against 0.931 / 0.776).
import { FsNoteStore } from "../../src/cli/fs-note-store";
import { VaultIndex } from "../../src/index/vault-index";

export interface IndexedVault {
  index: VaultIndex;
  store: FsNoteStore;
}

/** The vault at `vault`, indexed on the first call and its language learned; later calls share it. */
export function indexedOnce(vault: string): () => Promise<IndexedVault> {
  let indexed: Promise<IndexedVault> | undefined;
  return () =>
    (indexed ??= (async () => {
      const store = new FsNoteStore(vault);
      const index = new VaultIndex();
      await index.sync(store, null);
      await index.languageSettled();
      return { index, store };
    })());
}
