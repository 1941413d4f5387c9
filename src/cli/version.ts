// The version the CLI and the MCP server report. Kept in step with package.json by a test
// (test/cli/version.test.ts): src/ never reads files outside itself.
export const CLI_VERSION = "0.1.0";
