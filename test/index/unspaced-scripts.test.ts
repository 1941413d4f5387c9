// Scripts written without spaces between words: Chinese and Japanese, and Thai, Lao, Khmer and
// Burmese. A run of them is a clause, not a word, so the index keeps its character pairs; a word
// typed in a query must find the clause that holds it, whatever marks (tones, vowels, voicing) it carries.
import { beforeAll, describe, expect, it } from "vitest";
import { createAnalyzer, foldCase } from "../../src/index/tokenize";
import { VaultIndex } from "../../src/index/vault-index";
import { MemoryNoteStore } from "../support/memory-note-store";

const plain = createAnalyzer({ stemming: false });

// Sentences written for this test: "Yesterday I went to the market to buy mangoes and durian", and
// so on; each note says one thing the others do not.
const NOTES: Record<string, string> = {
  "Thai/Market.md": "# ตลาด\n\nเมื่อวานฉันไปตลาดซื้อมะม่วงกับทุเรียนที่แม่ค้าขายอยู่หน้าวัด\n",
  "Thai/Rice.md": "# อาหาร\n\nฉันชอบกินข้าวผัดกับไก่ทอดที่ร้านใกล้บ้านทุกวันเสาร์\n",
  "Lao/Food.md": "# ອາຫານ\n\nຂ້ອຍມັກກິນເຂົ້າໜຽວກັບໄກ່ປີ້ງຢູ່ຕະຫຼາດເຊົ້າ\n",
  "Khmer/Library.md": "# បណ្ណាល័យ\n\nខ្ញុំចូលចិត្តអានសៀវភៅនៅបណ្ណាល័យរៀងរាល់ថ្ងៃសៅរ៍\n",
  "Burmese/Books.md": "# စာကြည့်တိုက်\n\nကျွန်တော်စာအုပ်ဖတ်ရတာကြိုက်တယ်\n",
  "Japan/Kyoto.md": "# 旅行\n\n京都の観光ガイドを読みました。\n",
  "Japan/Coffee.md": "# 朝\n\n毎朝コーヒーを飲みます。\n",
  "Japan/Hot.md": "# 天気\n\nとても暑い日でした。ヒとコの字を練習した。\n",
  "English/Rice.md": "# Fried rice\n\nFried rice with chicken, every Saturday.\n",
};

let index: VaultIndex;
const store = new MemoryNoteStore(NOTES);

beforeAll(async () => {
  index = new VaultIndex({});
  await index.sync(store, null);
});

const found = async (query: string) => (await index.search(query, store, { limit: 5 })).map((r) => r.path);

describe("words of scripts without spaces are found inside the clause that holds them", () => {
  it.each([
    ["ทุเรียน", "Thai/Market.md"],
    ["มะม่วง", "Thai/Market.md"],
    ["ข้าวผัด", "Thai/Rice.md"],
    ["ไก่ทอด", "Thai/Rice.md"],
    ["ເຂົ້າໜຽວ", "Lao/Food.md"],
    ["សៀវភៅ", "Khmer/Library.md"],
    ["စာအုပ်", "Burmese/Books.md"],
    ["ガイド", "Japan/Kyoto.md"],
    ["コーヒー", "Japan/Coffee.md"],
  ])("%s finds %s first", async (query, path) => {
    expect((await found(query))[0]).toBe(path);
  });

  it("checks a quoted Thai phrase inside a clause, as a Chinese one is checked", async () => {
    expect(await found('"ข้าวผัด"')).toEqual(["Thai/Rice.md"]);
    expect(await found('"ผัดข้าว"')).toEqual([]);
  });

  it("marks the Thai word found, not the whole clause", async () => {
    const [hit] = await index.search("ทุเรียน", store, { limit: 1 });
    const section = hit.sections.find((s) => s.highlights.length > 0)!;
    const marked = section.highlights.map(([start, end]) => section.snippet.slice(start, end));
    expect(marked).toEqual(["ทุเรียน"]);
  });

  it("keeps a word's tone and vowel marks: rice (ข้าว) is not white (ขาว)", () => {
    expect(plain.terms("ข้าว")).not.toEqual(plain.terms("ขาว"));
    expect(foldCase("ข้าว")).toBe("ข้าว");
    // Nor is a voiced kana its unvoiced one: ガイド (guide) is not カイト.
    expect(foldCase("ガイド")).toBe("ガイド");
  });

  it("indexes a Thai clause of any length as pairs, not as one word too long to keep", () => {
    const clause = "เมื่อวานฉันไปตลาดซื้อมะม่วงกับทุเรียนที่แม่ค้าขายอยู่หน้าวัด";
    expect(clause.length).toBeGreaterThan(40);
    const terms = plain.terms(clause);
    expect(terms.length).toBe(Array.from(clause).length - 1);
    for (const term of plain.terms("ทุเรียน")) expect(terms).toContain(term);
  });

  it("reads a Japanese word's long vowel mark (ー) as part of the word", async () => {
    expect(plain.terms("コーヒー")).toEqual(["コー", "ーヒ", "ヒー"]);
    // A note holding コ and ヒ apart is no match for coffee.
    expect(await found("コーヒー")).not.toContain("Japan/Hot.md");
  });

  it("still folds the accents of spaced scripts", () => {
    expect(foldCase("Crème brûlée")).toBe("creme brulee");
    expect(foldCase("Việt")).toBe("viet");
    expect(plain.terms("Fried rice")).toEqual(["fried", "rice"]);
  });
});
