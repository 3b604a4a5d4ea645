/**
 * The lab's HTML reports in real headless Debian chromium (playwright-core):
 * an experiment (`kscale lab experiment throttling`, two tiny runs) writes a
 * comparison.html and one report.html per variant; each renders, draws all
 * its charts, and logs no console errors. The comparison states its lesson
 * and has one column per variant.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { chromium, type Browser } from 'playwright-core';
import { KSCALE } from './harness.js';

const CHROMIUM = '/usr/bin/chromium';

describe('lab HTML reports in chromium', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kscale-lab-html-'));
  let browser: Browser;
  let code: number | null = null;
  let stderr = '';

  before(async () => {
    if (!existsSync(CHROMIUM))
      throw new Error(`${CHROMIUM} is missing: install Debian's chromium (scripts/setup.sh does)`);
    const p = spawn(
      process.execPath,
      [
        KSCALE,
        'lab',
        'experiment',
        'throttling',
        '--nodes',
        '4',
        '--pods-per-node',
        '10',
        '--pod-rate',
        '100',
        '--pod-startup-ms',
        '200',
        '--scrape-interval',
        '1s',
        '--settle',
        '2s',
        // The throttling scenario's hold and the 50 LISTs + 250 writes would take minutes.
        '--hold',
        '5s',
        '--noisy-neighbour',
        '5,20',
        '--report',
        dir,
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    p.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    code = await new Promise((r) => p.once('close', r));
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  });

  after(async () => {
    await browser?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function open(file: string): Promise<{ drawn: number; canvases: number; errors: string[]; text: string }> {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(`file://${file}`);
    // The function runs in the page, where the report sets __chartsDrawn once its script is done.
    await page.waitForFunction('window.__chartsDrawn !== undefined', undefined, { timeout: 10_000 });
    const drawn = await page.evaluate<number>('window.__chartsDrawn');
    const canvases = await page.locator('canvas').count();
    const text = await page.locator('body').innerText();
    await page.close();
    return { drawn, canvases, errors, text };
  }

  test('the experiment completes both variants', () => {
    assert.equal(code, 0, stderr);
    const cmp = JSON.parse(readFileSync(join(dir, 'comparison.json'), 'utf8')) as {
      variants: { label: string; result: string }[];
      figures: { name: string; values: (number | null)[] }[];
    };
    assert.deepEqual(
      cmp.variants.map((v) => v.result),
      ['completed', 'completed'],
    );
    const f429 = cmp.figures.find((f) => f.name.startsWith('429'));
    assert.equal(f429?.values.length, 2);
  });

  test('comparison.html renders its lesson, a column per variant and every chart, with no console errors', async () => {
    const r = await open(join(dir, 'comparison.html'));
    assert.deepEqual(r.errors, []);
    assert.match(r.text, /Lesson\. API Priority and Fairness gives every kind of client its own share/);
    assert.match(r.text, /APF, noisy neighbour/);
    assert.match(r.text, /max-in-flight only, noisy neighbour/);
    assert.ok(r.drawn >= 7, `drawn ${r.drawn}`);
    assert.equal(r.canvases, r.drawn);
  });

  test("each variant's report.html renders its SLO table and every chart, with no console errors", async () => {
    const cmp = JSON.parse(readFileSync(join(dir, 'comparison.json'), 'utf8')) as { variants: { dir: string }[] };
    for (const v of cmp.variants) {
      const r = await open(join(v.dir, 'report.html'));
      assert.deepEqual(r.errors, []);
      assert.match(r.text, /Pod startup latency p99/);
      assert.match(r.text, /PASS|FAIL/);
      assert.ok(r.drawn >= 8, `drawn ${r.drawn}`);
      assert.equal(r.canvases, r.drawn);
    }
  });
});
