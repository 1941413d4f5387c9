import { describe, expect, it } from "vitest";
import {
  alsoFoundByLabel,
  outsideVaultCounter,
  outsideVaultLabel,
  providerDisplayName,
  rowCount,
  savedPageLabel,
  vaultEvidenceCounter,
} from "../../src/evidence/labels";

describe("labels", () => {
  it("labels an outside row with provider display name and store", () => {
    expect(outsideVaultLabel("brave", "ephemeral")).toBe("Outside vault · Brave · ephemeral");
    expect(outsideVaultLabel("Brave", "promoted")).toBe("Outside vault · Brave · promoted");
    expect(outsideVaultLabel("exa", "ephemeral")).toBe("Outside vault · Exa · ephemeral");
  });

  it("says a vault note is a saved web page, and from which site", () => {
    expect(savedPageLabel("https://www.kites.example/lines?x=1")).toBe("Saved web page · kites.example");
    expect(savedPageLabel("not an address")).toBe("Saved web page · not an address");
  });

  it("shows both Brave endpoints as Brave and capitalises unknown providers", () => {
    expect(providerDisplayName("brave-web")).toBe("Brave");
    expect(providerDisplayName("kagi")).toBe("Kagi");
  });

  it("counts rows with the right plural", () => {
    expect(rowCount(1)).toBe("1 row");
    expect(rowCount(0)).toBe("0 rows");
    expect(vaultEvidenceCounter(4)).toBe("Vault evidence: 4 rows");
    expect(vaultEvidenceCounter(1)).toBe("Vault evidence: 1 row");
  });

  it("names the providers behind outside rows, each once", () => {
    expect(outsideVaultCounter(3, ["brave"])).toBe("Outside vault: 3 rows from Brave");
    expect(outsideVaultCounter(1, ["brave", "brave-web"])).toBe("Outside vault: 1 row from Brave");
    expect(outsideVaultCounter(5, ["brave", "exa"])).toBe("Outside vault: 5 rows from Brave and Exa");
    expect(outsideVaultCounter(6, ["brave", "exa", "kagi"])).toBe("Outside vault: 6 rows from Brave, Exa and Kagi");
    expect(outsideVaultCounter(0, [])).toBe("Outside vault: 0 rows");
  });

  it("words the duplicate signal", () => {
    expect(alsoFoundByLabel(["brave", "exa"])).toBe("also found by Brave and Exa");
  });
});
