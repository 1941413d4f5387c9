// Renders an answer: markdown through Obsidian's renderer, with citations turned into chips.
//
// The answer is written by a model that read untrusted web text, so anything in it may have come
// from a web page. Before rendering it is made inert by the one rule for answers
// (notes/inert-answer.ts: no link, embed, HTML, tag or plugin code block can form). After
// rendering, whatever the renderer still turned into a link or an embed (bare URLs) is reduced to
// its text, and only then are the citation brackets — still plain text — replaced by our chips.
import { MarkdownRenderer, type App, type Component } from "obsidian";
import type { Citation, ResearchPack } from "../evidence/research-pack";
import { outsideVaultLabel } from "../evidence/labels";
import { CITATION_BRACKET, citationKeys, inertAnswerMarkdown } from "../notes/inert-answer";

export { citationKeys };

/** Where a citation chip leads. */
export type CitationTarget =
  | { origin: "vault"; key: string; title: string; path: string; heading?: string; line?: number }
  | { origin: "outside_vault"; key: string; title: string; url: string; label: string };

export interface ChipActions {
  openNote(target: Extract<CitationTarget, { origin: "vault" }>, evt: MouseEvent): void;
  openUrl(target: Extract<CitationTarget, { origin: "outside_vault" }>, evt: MouseEvent): void;
}

/** Chip targets for every row of the pack, keyed by source key; `citations` fill in what rows lack. */
export function citationTargets(pack: Pick<ResearchPack, "evidence" | "external_evidence">, citations: readonly Citation[] = []): Map<string, CitationTarget> {
  const targets = new Map<string, CitationTarget>();
  for (const row of pack.evidence) {
    const best = row.sections[0];
    targets.set(row.source_key, {
      origin: "vault",
      key: row.source_key,
      title: row.title,
      path: row.note_path,
      ...(best && best.heading !== "" ? { heading: best.heading, line: best.line } : {}),
    });
  }
  for (const row of pack.external_evidence) {
    const store = row.retrieval.lanes[0]?.store ?? "ephemeral";
    targets.set(row.source_key, {
      origin: "outside_vault",
      key: row.source_key,
      title: row.title,
      url: row.url,
      label: outsideVaultLabel(row.provider, store),
    });
  }
  for (const c of citations) {
    if (targets.has(c.source_key)) continue;
    if (c.origin === "vault" && c.note_path) {
      targets.set(c.source_key, { origin: "vault", key: c.source_key, title: c.note_path.replace(/\.md$/i, ""), path: c.note_path });
    } else if (c.origin === "outside_vault" && c.url) {
      targets.set(c.source_key, {
        origin: "outside_vault",
        key: c.source_key,
        title: c.url,
        url: c.url,
        label: outsideVaultLabel(c.provider ?? "web", "ephemeral"),
      });
    }
  }
  return targets;
}

/** Blocks of running text, each set in the direction of its own words. */
const TEXT_BLOCKS = "p, ul, ol, li, h1, h2, h3, h4, h5, h6, blockquote, td, th";

/** Elements that load or embed something; none belongs in an answer. */
const EMBEDS = "img, picture, video, audio, iframe, object, embed, source, .internal-embed, form";

/** Renders `markdown` into `el`, neutralised, with citation brackets as chips. */
export async function renderAnswer(
  app: App,
  markdown: string,
  el: HTMLElement,
  targets: ReadonlyMap<string, CitationTarget>,
  actions: ChipActions,
  component: Component,
): Promise<void> {
  // Rendered while detached, cleaned, and only then shown.
  const staging = createDiv();
  await MarkdownRenderer.render(app, inertAnswerMarkdown(markdown), staging, "", component);
  for (const embed of Array.from(staging.querySelectorAll(EMBEDS))) embed.remove();
  for (const link of Array.from(staging.querySelectorAll("a"))) link.replaceWith(link.ownerDocument.createTextNode(link.textContent ?? ""));
  chipCitations(staging, targets, actions);
  // Each block takes the direction of its own first words: an Arabic paragraph reads right to left.
  for (const block of Array.from(staging.querySelectorAll(TEXT_BLOCKS))) block.setAttr("dir", "auto");
  while (staging.firstChild) el.appendChild(staging.firstChild);
}

function chipCitations(root: Node, targets: ReadonlyMap<string, CitationTarget>, actions: ChipActions): void {
  for (const child of Array.from(root.childNodes)) {
    if (child.nodeType === 3) chipTextNode(child as Text, targets, actions);
    else if (child.nodeType === 1 && !["CODE", "PRE"].includes((child as Element).tagName)) chipCitations(child, targets, actions);
  }
}

function chipTextNode(node: Text, targets: ReadonlyMap<string, CitationTarget>, actions: ChipActions): void {
  const text = node.data;
  const matches = [...text.matchAll(CITATION_BRACKET)].filter((m) => citationKeys(m[1]) !== null);
  if (matches.length === 0) return;
  const fragment = createFragment();
  let at = 0;
  for (const m of matches) {
    if (m.index > at) fragment.appendText(text.slice(at, m.index));
    const group = fragment.createSpan({ cls: "vault-research-citations" });
    for (const key of citationKeys(m[1]) ?? []) renderChip(group, key, targets.get(key), actions);
    at = m.index + m[0].length;
  }
  if (at < text.length) fragment.appendText(text.slice(at));
  node.replaceWith(fragment);
}

/**
 * One chip: "Vault" or "Web", then the source's title. Its accessible name starts with those same
 * words and adds where it leads (the note's path, or the page's label and address).
 */
export function renderChip(parent: HTMLElement, key: string, target: CitationTarget | undefined, actions: ChipActions): HTMLElement {
  if (!target) {
    return parent.createSpan({
      cls: "vault-research-chip vault-research-chip-unknown",
      text: key,
      attr: { "aria-label": `${key} is not a source of this answer`, "data-source-key": key },
    });
  }
  const outside = target.origin === "outside_vault";
  const mark = outside ? "Web" : "Vault";
  const chip = parent.createEl("button", {
    cls: ["vault-research-chip", outside ? "vault-research-chip-outside" : "vault-research-chip-vault"],
    attr: {
      type: "button",
      "data-source-key": key,
      "aria-label": outside ? `${mark} ${target.title} — ${target.label} (${target.url})` : `${mark} ${target.title} — note in your vault: ${target.path}${target.heading ? ` › ${target.heading}` : ""}`,
    },
  });
  chip.createSpan({ cls: "vault-research-chip-mark", text: mark });
  chip.appendText(" ");
  chip.createSpan({ cls: "vault-research-chip-title", text: target.title, attr: { dir: "auto" } });
  chip.addEventListener("click", (evt) => {
    evt.preventDefault();
    if (target.origin === "vault") actions.openNote(target, evt);
    else actions.openUrl(target, evt);
  });
  return chip;
}
