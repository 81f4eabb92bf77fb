import { describe, expect, it } from "vitest";
import { decodeEntities, htmlToText } from "./html-text";

describe("htmlToText", () => {
  it("keeps the title and the visible text, and nothing of the markup", () => {
    const html = `<!doctype html><html><head><title> Le  Guichet &amp; co </title>
      <style>body { color: red }</style><script>alert("x")</script></head>
      <body><!-- hidden comment --><h1>Bonjour</h1><p>Premier <b>paragraphe</b>&nbsp;ici.</p>
      <noscript>enable js</noscript><svg><text>vector</text></svg>
      <ul><li>un</li><li>deux</li></ul><a href="/x" title="a > b">lien</a></body></html>`;
    const { title, text } = htmlToText(html);
    expect(title).toBe("Le Guichet & co");
    expect(text).toBe("Bonjour\nPremier paragraphe ici.\nun\ndeux\nlien");
  });

  it("returns a null title when there is none", () => {
    expect(htmlToText("<p>x</p>").title).toBeNull();
  });

  it("drops an unclosed script to the end, as a browser would", () => {
    expect(htmlToText("<p>before</p><script>var a = '<p>not text</p>'").text).toBe("before");
  });

  it("drops tags left unclosed", () => {
    expect(htmlToText("<p>ok</p><img src=x onerror=alert(1) <p>after</p>").text).toBe("ok\nafter");
  });

  it("leaves a bare less-than sign in text alone", () => {
    expect(htmlToText("<p>1 < 2 and 3 > 2</p>").text).toBe("1 < 2 and 3 > 2");
  });

  // A quadratic pattern would take minutes on this input and hit the test
  // timeout; the linear ones finish in milliseconds. No clock is read here.
  it("gets through hostile markup full of unclosed tags", () => {
    const hostile =
      "<a ".repeat(100_000) + '<b "'.repeat(100_000) + "<title>".repeat(50_000) + "<script".repeat(50_000);
    expect(htmlToText(hostile).text).toBe("");
  });
});

describe("decodeEntities", () => {
  it("decodes named, decimal and hex references and keeps unknown ones", () => {
    expect(decodeEntities("&eacute;t&eacute; &#233; &#x1F600; &lt;b&gt; &unknown; &#0; &#xD800;")).toBe(
      "été é 😀 <b> &unknown; \uFFFD \uFFFD",
    );
  });
});
