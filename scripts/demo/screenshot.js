// Drives the web demo in headless Chromium: presses Clean on an empty box (refused, nothing
// sent), pastes a page as plain text (the answer warns of its markup), pastes it as HTML and
// presses Clean, chooses Markdown and the kind "listing" (cleaned again with them; the Markdown's
// structure drawn beside it, headings and paragraphs without an attribute), then tries a URL that fails (no stale result may stay beside the error), pastes the page
// again (it, not the URL, is cleaned, and the page says so), checks that kept text and
// struck-through dropped text are both shown, and saves a screenshot. Run by scripts/demo-screenshot.sh, which starts the server.
//
// Usage: node screenshot.js URL PAGE.html OUT.png   (playwright-core on NODE_PATH)
"use strict";
const fs = require("fs");
const os = require("os");
const path = require("path");
const { chromium } = require("playwright-core");

const ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

async function main() {
  const [url, pagePath, out] = process.argv.slice(2);
  if (!out) throw new Error("usage: screenshot.js URL PAGE.html OUT.png");
  // A fresh profile, so that nothing from an earlier run is reused.
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), "ppl-demo-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: "/usr/bin/chromium",
    headless: true,
    args: ARGS,
    viewport: { width: 1400, height: 900 },
  });
  try {
    const page = context.pages()[0] || (await context.newPage());
    await page.goto(url);
    const html = fs.readFileSync(pagePath, "utf8");
    // An empty box is refused before anything is sent.
    let sent = 0;
    page.on("request", (request) => { if (request.url().endsWith("/clean")) sent += 1; });
    await page.fill("#input", "  \n ");
    await page.click("#clean");
    await page.waitForSelector("#status.error", { timeout: 60000 });
    if (sent !== 0) throw new Error("an empty box was sent to the server");
    // HTML pasted as plain text: cleaned as it is, and the page warns.
    await page.fill("#input", html);
    await page.check("input[name=pasted][value=text]");
    await page.click("#clean");
    await page.waitForSelector('body[data-cleaned="yes"]', { timeout: 60000 });
    const warned = await page.textContent("#problems");
    if (!warned.includes("HTML markup")) throw new Error(`no warning for HTML as text: ${warned}`);
    await page.check("input[name=pasted][value=html]");
    await page.click("#clean");
    await page.waitForSelector('body[data-cleaned="yes"]', { timeout: 60000 });
    // Options: each change cleans again with it, and the summary names the kind.
    const asked = page.waitForRequest((request) => request.url().endsWith("/clean"));
    await page.selectOption("#kind", "listing");
    const options = JSON.parse((await asked).postData());
    if (options.kind !== "listing") throw new Error(`the kind was not sent: ${JSON.stringify(options)}`);
    await page.waitForFunction(() => document.querySelector("#summary").textContent.includes("listing"));
    await page.selectOption("#kind", "auto");
    await page.waitForFunction(() => !document.querySelector("#summary").textContent.includes("listing"));
    const markdown = page.waitForResponse((response) => response.url().endsWith("/clean"));
    await page.selectOption("#format", "markdown");
    const answer = await (await markdown).json();
    if (!/^#{1,6} /.test(answer.text)) throw new Error(`not Markdown: ${answer.text.slice(0, 60)}`);
    // The Markdown's structure drawn beside it: headings and paragraphs, no attribute of the page.
    await page.waitForSelector("#preview p", { timeout: 60000 });
    const drawn = await page.evaluate(() => [...document.querySelectorAll("#preview *")]
      .filter((node) => [...node.attributes].some((a) => a.name !== "start")).length);
    if (drawn !== 0) throw new Error(`the drawn structure kept ${drawn} elements with attributes`);
    if (!(await page.$("#preview h1, #preview h2, #preview h3"))) throw new Error("no heading drawn");
    await page.selectOption("#format", "text");
    await page.waitForSelector('body[data-cleaned="yes"]', { timeout: 60000 });
    // A URL that fails (the server fetches public addresses only): the error leaves no result
    // of the page cleaned before on show.
    await page.fill("#url", "http://127.0.0.1:1/");
    await page.click("#clean");
    await page.waitForSelector("#status.error", { timeout: 60000 });
    const stale = (await page.textContent("#kept")).trim();
    if (stale) throw new Error(`after an error the old result is still shown: ${stale.slice(0, 60)}`);
    if (await page.$('body[data-cleaned="yes"]')) throw new Error("after an error the page says it is cleaned");
    // Pasted HTML after a URL was tried: the pasted page is cleaned, and the page says so.
    await page.fill("#input", html);
    await page.click("#clean");
    await page.waitForSelector('body[data-cleaned="yes"]', { timeout: 60000 });
    const said = await page.textContent("#summary");
    if (!said.includes("the pasted HTML")) throw new Error(`not the pasted HTML cleaned: ${said}`);
    const kept = (await page.textContent("#kept")).trim();
    const dropped = await page.$$eval("#blocks s", (nodes) => nodes.map((n) => n.textContent));
    const status = await page.textContent("#status");
    if (!kept) throw new Error(`no kept text shown (status: ${status})`);
    if (dropped.length === 0) throw new Error("no struck-through dropped text shown");
    await page.screenshot({ path: out, fullPage: true });
    const summary = await page.textContent("#summary");
    console.log(`demo-screenshot: ${summary} ${dropped.length} dropped sentences struck through; saved ${out}`);
  } finally {
    await context.close();
    fs.rmSync(profile, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(`demo-screenshot: ${error.message}`);
  process.exit(1);
});
