// The CLI's --json output read through the schema it promises (src/cli/json): a test that reads
// it this way checks the contract as well, and gets the typed value rather than `any`.
import { embedReportSchema } from "../../src/cli/json/embed-report-json";
import { evalReportSchema } from "../../src/cli/json/eval-report-json";
import { indexReportSchema } from "../../src/cli/json/index-report-json";
import { levelComparisonSchema } from "../../src/cli/json/level-comparison-json";
import { promoteResultSchema } from "../../src/cli/json/promote-result-json";
import { researchResultSchema } from "../../src/cli/json/research-result-json";
import { vaultSearchSchema } from "../../src/cli/json/vault-search-json";
import { websearchSchema } from "../../src/cli/json/websearch-json";

export const readEmbedReport = (out: string) => embedReportSchema.parse(JSON.parse(out));
export const readEvalReport = (out: string) => evalReportSchema.parse(JSON.parse(out));
export const readIndexReport = (out: string) => indexReportSchema.parse(JSON.parse(out));
export const readLevelComparison = (out: string) => levelComparisonSchema.parse(JSON.parse(out));
export const readPromoteResult = (out: string) => promoteResultSchema.parse(JSON.parse(out));
export const readResearchResult = (out: string) => researchResultSchema.parse(JSON.parse(out));
export const readVaultSearch = (out: string) => vaultSearchSchema.parse(JSON.parse(out));
export const readWebsearch = (out: string) => websearchSchema.parse(JSON.parse(out));
