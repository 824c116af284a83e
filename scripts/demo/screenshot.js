// Drives the web demo in headless Chromium: pastes a page into the textarea, presses Clean,
// waits for the result, checks that kept text and struck-through dropped text are both shown,
// and saves a screenshot. Run by scripts/demo-screenshot.sh, which starts the server.
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
    await page.fill("#input", fs.readFileSync(pagePath, "utf8"));
    await page.click("#clean");
    await page.waitForSelector('body[data-cleaned="yes"]', { timeout: 60000 });
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
