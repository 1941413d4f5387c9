// The code a Node worker runs (cli/worker-main.ts, bundled on its own), defined into the CLI's
// bundle by esbuild.config.mjs; null when this file runs unbundled (tests). In a module of its own,
// loaded only when a worker is started: every command would otherwise load its 0.3 MB.
declare const __VAULT_RESEARCH_NODE_WORKER__: string | undefined;

export const NODE_WORKER_CODE: string | null = typeof __VAULT_RESEARCH_NODE_WORKER__ === "string" ? __VAULT_RESEARCH_NODE_WORKER__ : null;
