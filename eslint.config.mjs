// Lint: Obsidian's own plugin guidelines (eslint-plugin-obsidianmd's recommended set, which
// already includes ESLint's and typescript-eslint's type-checked recommendations).
import { defineConfig, globalIgnores } from "eslint/config";
import obsidianmd from "eslint-plugin-obsidianmd";

export default defineConfig([
  globalIgnores(["node_modules/", "dist/", "main.js", "coverage/", "test-artifacts/"]),
  ...obsidianmd.configs.recommended,
  {
    languageOptions: {
      parserOptions: {
        projectService: { allowDefaultProject: ["eslint.config.mjs", "esbuild.config.mjs"] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      "obsidianmd/ui/sentence-case": [
        "warn",
        { brands: ["Vault Research", "Obsidian", "Brave", "Exa", "Ollama", "LM Studio", "OpenAI", "Anthropic", "English"] },
      ],
      // `import { z }` makes esbuild keep all of zod, its 40 locales included (main.js 1.80 MB
      // against 1.45 MB, and 12 ms more to load the CLI's search); `import * as z` lets it shake.
      "no-restricted-syntax": [
        "error",
        {
          selector:
            ":matches(ImportDeclaration[importKind!='type'], ExportNamedDeclaration)[source.value=/^zod(\\u002Fv4)?$/] > :matches(ImportSpecifier[imported.name='z'], ImportDefaultSpecifier, ExportSpecifier[local.name='z'])",
          message: 'Write `import * as z from "zod"`: the named z keeps every locale in the bundle.',
        },
      ],
    },
  },
  {
    // These layers run in Node (the CLI) as well as in Obsidian, where there is no `window`;
    // the layer test keeps `obsidian` and `node:*` out of them.
    files: [
      "src/research/**",
      "src/promote/**",
      "src/notes/**",
      "src/evidence/**",
      "src/eval/**",
      "src/text/**",
      "src/index/**",
      "src/websearch/**",
      "src/llm/**",
      "src/ports.ts",
      "src/settings.ts",
      "src/deadline.ts",
      "src/provider-names.ts",
    ],
    rules: { "obsidianmd/prefer-window-timers": "off" },
  },
  {
    // The CLI is a Node program: Node modules, globals and timers are its platform, and so are the
    // Node adapters it shares with the plugin on desktop (src/node, which the plugin loads only by a
    // dynamic import there; the layer test pins that), and the build script that bundles them all.
    // TypeScript already checks that every name exists, which is all no-undef would add.
    files: ["src/cli/**", "src/node/**", "bench/**", "esbuild.config.mjs"],
    rules: {
      "obsidianmd/no-nodejs-modules": "off",
      "obsidianmd/prefer-window-timers": "off",
      "obsidianmd/no-global-this": "off",
      "no-undef": "off",
    },
  },
]);
