import { describe, expect, it } from "vitest";
import { isHttpUrl, originOf } from "../../src/text/urls";

describe("originOf", () => {
  it("names a server by its origin only, so a path or query holding a key never reaches a message", () => {
    expect(originOf("https://api.example.com/v1/embeddings?key=secret")).toBe("https://api.example.com");
    expect(originOf("http://localhost:11434/api/embed")).toBe("http://localhost:11434");
  });

  it("gives text that is no URL back as it is", () => {
    expect(originOf("not a url")).toBe("not a url");
  });
});

describe("isHttpUrl", () => {
  it("accepts http and https addresses only", () => {
    expect(isHttpUrl("http://localhost:1234/v1")).toBe(true);
    expect(isHttpUrl("https://api.openai.com/v1")).toBe(true);
    expect(isHttpUrl("file:///etc/passwd")).toBe(false);
    expect(isHttpUrl("localhost:1234")).toBe(false);
    expect(isHttpUrl("")).toBe(false);
  });
});
