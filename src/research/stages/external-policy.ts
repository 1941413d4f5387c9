// The external policy: whether this run may, and should, look outside the vault. `never` (the
// default) keeps everything on the device; `always` searches; `on-weak` searches only when the
// judge found the vault's evidence missing or weak — or when the question asks about the current
// state, which a vault may be out of date on.
import type { Judgement, QueryPlan } from "../../evidence/research-pack";
import type { ExternalMode } from "../../settings";

export interface ExternalDecision {
  search: boolean;
  /** Why, in words, for the timeline and the trace. */
  reason: string;
}

export function decideExternal(mode: ExternalMode | undefined, judgement: Judgement, plan: QueryPlan): ExternalDecision {
  if (mode === "never" || mode === undefined) return { search: false, reason: "External search is off for this run; nothing left the device." };
  if (mode === "always") return { search: true, reason: "External search is set to always for this run." };
  if (plan.freshness.flagged) {
    return { search: true, reason: `The question asks about the current state ("${plan.freshness.cues.join('", "')}"); the vault may be out of date, so the web is searched.` };
  }
  if (judgement.verdict !== "enough_evidence") {
    return { search: true, reason: `The vault's evidence is ${judgement.verdict === "no_evidence" ? "missing" : "weak"}, so the web is searched (mode: if vault is weak).` };
  }
  return { search: false, reason: "The vault has enough evidence; the web was not searched." };
}
