// @vitest-environment happy-dom
// The stand-in is only useful while it behaves like the app where our code depends on it.
import { describe, expect, it, vi } from "vitest";
import { debounce, normalizePath, Setting, TFile, Vault, type TAbstractFile } from "../stubs/obsidian";

describe("obsidian stand-in", () => {
  it("adds Obsidian's DOM helpers, treating a bare string as a class name", () => {
    const root = createDiv({ cls: ["a", "b"] });
    const span = root.createSpan("hint");
    const link = root.createEl("a", { text: "open", attr: { "data-x": 1, hidden: false }, href: "#" });
    expect(span.className).toBe("hint");
    expect(link.textContent).toBe("open");
    expect(link.getAttribute("data-x")).toBe("1");
    expect(link.hasAttribute("hidden")).toBe(false);
    root.toggleClass("on", true);
    root.setText("plain <b>text</b>");
    expect(root.className).toBe("a b on");
    expect(root.children).toHaveLength(0);
    root.empty();
    expect(root.childNodes).toHaveLength(0);
  });

  it("fires vault events after each write, with the old path on rename", async () => {
    const vault = new Vault();
    const seen: string[] = [];
    vault.on("create", (f) => void seen.push(`create ${(f as TAbstractFile).path}`));
    vault.on("modify", (f) => void seen.push(`modify ${(f as TAbstractFile).path}`));
    vault.on("rename", (f, old) => void seen.push(`rename ${old as string} → ${(f as TAbstractFile).path}`));
    vault.on("delete", (f) => void seen.push(`delete ${(f as TAbstractFile).path}`));
    await vault.createFolder("A");
    const file = await vault.create("A/n.md", "x");
    await vault.modify(file, "xy");
    await vault.rename(vault.getAbstractFileByPath("A")!, "B");
    await vault.delete(file);
    expect(seen).toEqual(["create A", "create A/n.md", "modify A/n.md", "rename A → B", "rename A/n.md → B/n.md", "delete B/n.md"]);
    expect(file).toBeInstanceOf(TFile);
    expect(file.stat.size).toBe(2);
    await expect(vault.create("B", "x")).rejects.toThrow(/exists/);
  });

  it("chains settings components and calls back on change", () => {
    const el = createDiv();
    const changes: unknown[] = [];
    new Setting(el)
      .setName("Name")
      .addText((t) => t.setValue("a").onChange((v) => changes.push(v)))
      .addToggle((t) => t.setValue(false).onChange((v) => changes.push(v)))
      .addDropdown((d) => d.addOptions({ x: "X", y: "Y" }).setValue("y").onChange((v) => changes.push(v)));
    const input = el.querySelector("input")!;
    input.value = "b";
    input.dispatchEvent(new Event("input"));
    (el.querySelector(".checkbox-container") as HTMLElement).click();
    expect(changes).toEqual(["b", true]);
    expect(el.querySelector("select")!.value).toBe("y");
  });

  it("debounces like the app: once per timeout, cancellable", () => {
    vi.useFakeTimers();
    const calls: number[] = [];
    const d = debounce((n: number) => void calls.push(n), 100, true);
    d(1);
    d(2);
    vi.advanceTimersByTime(100);
    d(3);
    d.cancel();
    vi.advanceTimersByTime(100);
    expect(calls).toEqual([2]);
    vi.useRealTimers();
  });

  it("normalises paths like the app", () => {
    expect(normalizePath("/a//b\\c/")).toBe("a/b/c");
    expect(normalizePath("")).toBe("/");
  });
});
