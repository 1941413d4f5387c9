import { describe, expect, it } from "vitest";
import { getEncoding, PRESCAN_BYTES, prescanEncoding } from "../../src/promote/charset-prescan";

const bytes = (text: string) => Uint8Array.from([...text].map((c) => c.charCodeAt(0)));
const prescan = (text: string) => prescanEncoding(bytes(text));

describe("getEncoding: TextDecoder's label table", () => {
  it("trims ASCII whitespace, ignores case, and reads the legacy Latin labels as windows-1252", () => {
    expect(getEncoding(" \tWINDOWS-1251\n")).toBe("windows-1251");
    for (const label of ["latin1", "ISO-8859-1", "ascii", "us-ascii", "cp1252"]) expect(getEncoding(label), label).toBe("windows-1252");
    expect(getEncoding("koi8")).toBe("koi8-r");
  });

  it("knows no made-up label, nor a charset no browser decodes, but knows x-user-defined", () => {
    expect(getEncoding("x-no-such-charset")).toBeNull();
    expect(getEncoding("utf-7")).toBeNull();
    expect(getEncoding("")).toBeNull();
    expect(getEncoding(" X-User-Defined ")).toBe("x-user-defined");
  });
});

describe("prescanEncoding: <meta>", () => {
  it("reads <meta charset> quoted, single-quoted or bare, and maps UTF-16 to UTF-8 and x-user-defined to windows-1252", () => {
    expect(prescan('<meta charset="koi8-r">')).toBe("koi8-r");
    expect(prescan("<META CHARSET='Shift_JIS'>")).toBe("shift_jis");
    expect(prescan("<meta/charset=euc-kr>")).toBe("euc-kr");
    expect(prescan('<meta charset="utf-16">')).toBe("utf-8");
    expect(prescan('<meta charset="x-user-defined">')).toBe("windows-1252");
  });

  it("reads the charset of an http-equiv content the way the standard extracts it", () => {
    const pragma = (content: string) => prescan(`<meta http-equiv="content-type" content="${content}">`);
    expect(pragma("text/html;charsetcharset=iso-8859-2")).toBe("iso-8859-2");
    expect(pragma("text/html; charset=iso-8859-2 ")).toBe("iso-8859-2");
    expect(pragma("text/html; charset = 'iso-8859-2'; x=y")).toBe("iso-8859-2");
    expect(pragma("text/html; charset='iso-8859-2")).toBeNull();
    for (const truncated of ["text/html; charset", "text/html; charset ", "text/html; charset=", "text/html; charset= "]) {
      expect(pragma(truncated), truncated).toBeNull();
      expect(prescan(`<meta http-equiv=Content-Type content="${truncated}"><meta charset="utf-8">`), truncated).toBe("utf-8");
    }
  });

  it("lets a charset attribute win over a content one in the same meta, and the first of two same-named attributes count", () => {
    expect(prescan('<meta http-equiv="content-type" content="text/html;charset=koi8-r" charset="shift_jis">')).toBe("shift_jis");
    expect(prescan('<meta charset="koi8-r" charset="shift_jis">')).toBe("koi8-r");
    // An unknown charset still counts as set, so a later content charset does not stand in for it.
    expect(prescan('<meta charset="bogus" http-equiv="content-type" content="text/html;charset=koi8-r">')).toBeNull();
  });

  it("skips comments, end tags, doctypes and the attributes of other tags", () => {
    expect(prescan('<!DOCTYPE html><html lang="en"><!-- <meta charset="koi8-r"> --><meta charset="shift_jis">')).toBe("shift_jis");
    // A comment ends at the first "-->", its opening dashes included: "<!--->" is whole, "<!-- ->" is not.
    expect(prescan('<!---><meta charset="koi8-r">')).toBe("koi8-r");
    expect(prescan('<!-- -><meta charset="koi8-r">-->')).toBeNull();
    expect(prescan('<script src="a.js" charset="koi8-r"></script><meta charset="shift_jis">')).toBe("shift_jis");
    expect(prescan('<p title="x>"><meta charset="koi8-r">')).toBe("koi8-r");
    expect(prescan('</div class="<meta charset=koi8-r>"><meta charset="shift_jis">')).toBe("shift_jis");
  });

  it("finds nothing in a meta cut off before its >, or in an unclosed comment", () => {
    expect(prescan('<meta charset="koi8-r"')).toBeNull();
    expect(prescan('<meta charset="koi8-r" title="')).toBeNull();
    expect(prescan('<!-- <meta charset="koi8-r">')).toBeNull();
  });
});

describe("prescanEncoding: the first PRESCAN_BYTES only", () => {
  it("reads a meta that ends at its last byte, not one that ends a byte later", () => {
    const meta = '<meta charset="koi8-r">';
    expect(prescan(meta.padStart(PRESCAN_BYTES))).toBe("koi8-r");
    expect(prescan(meta.padStart(PRESCAN_BYTES + 1))).toBeNull();
  });

  it("reads no further on a large page whose start never closes a comment", () => {
    const page = new Uint8Array(5 * 1024 * 1024).fill(0x20);
    page.set(bytes("<!--"), 0);
    page.set(bytes('--><meta charset="koi8-r">'), PRESCAN_BYTES * 2);
    expect(prescanEncoding(page)).toBeNull();
  });
});

describe("prescanEncoding: XML declarations", () => {
  it("reads a declaration's encoding when no meta names one, and a meta's when one does", () => {
    expect(prescan('<?xml version="1.0" encoding="windows-1251"?><p>')).toBe("windows-1251");
    expect(prescan("<?xml version='1.0' encoding='cp1251'?>")).toBe("windows-1251");
    expect(prescan('<?xml encoding="windows-1251"?><meta charset="koi8-r">')).toBe("koi8-r");
    expect(prescan('<?xml encoding="windows-1251"?><meta charset="koi8-r"')).toBe("windows-1251");
  });

  it("reads it only at the very start, in lower case, quoted, before the first >", () => {
    const misses = [
      ' <?xml encoding="windows-1251"?>',
      '<?XML encoding="windows-1251"?>',
      '<?xml ENCODING="windows-1251"?>',
      "<?xml encoding=windows-1251?>",
      '<?xml>encoding="windows-1251"?>',
      '<?xml encoding="windows-1251>"',
      '<?xml encoding="windows-1251"?',
    ];
    for (const declaration of misses) {
      expect(prescan(declaration), declaration).toBeNull();
    }
  });

  it("refuses a label with whitespace or control bytes in its quotes, and an unknown one", () => {
    expect(prescan('<?xml encoding=" windows-1251"?>')).toBeNull();
    expect(prescan('<?xml encoding="windows-1251\t"?>')).toBeNull();
    expect(prescan('<?xml encoding="unknown" encoding="windows-1251"?>')).toBeNull();
  });

  it("maps UTF-16 to UTF-8 and keeps x-user-defined as it is", () => {
    expect(prescan('<?xml encoding="UTF-16"?>')).toBe("utf-8");
    expect(prescan('<?xml encoding="x-user-defined"?>')).toBe("x-user-defined");
  });

  it("reads a UTF-16 page with no mark by its first bytes, \"<?x\" in either order", () => {
    expect(prescanEncoding(Uint8Array.of(0x3c, 0, 0x3f, 0, 0x78, 0))).toBe("utf-16le");
    expect(prescanEncoding(Uint8Array.of(0, 0x3c, 0, 0x3f, 0, 0x78))).toBe("utf-16be");
    expect(prescanEncoding(Uint8Array.of(0x3c, 0, 0x3f, 0))).toBeNull();
  });
});
