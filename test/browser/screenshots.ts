// Screenshots compared with committed reference images (test/browser/reference/*.png), so a
// reviewer sees what changed. The comparison runs in the browser (two images on a canvas, no
// image library): a pixel differs when a colour channel moves by more than CHANNEL_TOLERANCE, and
// a screenshot passes when at most MAX_DIFFERING of its pixels differ (anti-aliasing, a blinking
// edge). The new image and a diff (differing pixels in red) go to test-artifacts/ to look at.
// UPDATE_SCREENSHOTS=1 rewrites the references; a missing reference is written and reported.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { BrowserContext, Page } from "playwright-core";
import { artifacts, root } from "./workbench-server";

export const referenceDir = path.join(root, "test/browser/reference");
const CHANNEL_TOLERANCE = 40;
/** Share of pixels that may differ. */
const MAX_DIFFERING = 0.004;

export interface ScreenshotOutcome {
  name: string;
  /** "written": no reference yet (or asked to update), so this one became it. */
  status: "same" | "written" | "different";
  differing: number;
  total: number;
}

let comparer: Page | null = null;

export async function compareScreenshot(context: BrowserContext, name: string, png: Buffer): Promise<ScreenshotOutcome> {
  mkdirSync(artifacts, { recursive: true });
  writeFileSync(path.join(artifacts, `${name}.png`), png);
  const reference = path.join(referenceDir, `${name}.png`);
  if (process.env.UPDATE_SCREENSHOTS === "1" || !existsSync(reference)) {
    mkdirSync(referenceDir, { recursive: true });
    writeFileSync(reference, png);
    return { name, status: "written", differing: 0, total: 0 };
  }
  comparer ??= await context.newPage();
  const result = await comparer.evaluate(diffInPage, { a: readFileSync(reference).toString("base64"), b: png.toString("base64"), tolerance: CHANNEL_TOLERANCE });
  if (result.diff) writeFileSync(path.join(artifacts, `${name}.diff.png`), Buffer.from(result.diff, "base64"));
  const same = result.sameSize && result.differing <= result.total * MAX_DIFFERING;
  return { name, status: same ? "same" : "different", differing: result.sameSize ? result.differing : result.total, total: result.total };
}

export async function closeComparer(): Promise<void> {
  await comparer?.close();
  comparer = null;
}

/** Runs in the page: decodes both PNGs, counts differing pixels, draws the diff. */
async function diffInPage({ a, b, tolerance }: { a: string; b: string; tolerance: number }): Promise<{ sameSize: boolean; differing: number; total: number; diff: string | null }> {
  const decode = async (base64: string) => {
    const bitmap = await createImageBitmap(await (await fetch(`data:image/png;base64,${base64}`)).blob());
    const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
    const ctx = canvas.getContext("2d")!;
    ctx.drawImage(bitmap, 0, 0);
    return ctx.getImageData(0, 0, bitmap.width, bitmap.height);
  };
  const [ref, now] = await Promise.all([decode(a), decode(b)]);
  const total = now.width * now.height;
  if (ref.width !== now.width || ref.height !== now.height) return { sameSize: false, differing: total, total, diff: null };
  const out = new ImageData(now.width, now.height);
  let differing = 0;
  for (let i = 0; i < now.data.length; i += 4) {
    const moved = Math.max(Math.abs(ref.data[i] - now.data[i]), Math.abs(ref.data[i + 1] - now.data[i + 1]), Math.abs(ref.data[i + 2] - now.data[i + 2]));
    const grey = (now.data[i] + now.data[i + 1] + now.data[i + 2]) / 3;
    if (moved > tolerance) {
      differing++;
      out.data.set([255, 0, 0, 255], i);
    } else {
      out.data.set([grey, grey, grey, 64], i);
    }
  }
  if (differing === 0) return { sameSize: true, differing, total, diff: null };
  const canvas = new OffscreenCanvas(now.width, now.height);
  canvas.getContext("2d")!.putImageData(out, 0, 0);
  const blob = await canvas.convertToBlob({ type: "image/png" });
  const bytes = new Uint8Array(await blob.arrayBuffer());
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return { sameSize: true, differing, total, diff: btoa(binary) };
}
