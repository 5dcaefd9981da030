// The editor of the e2e Node-RED in Debian's chromium (never a downloaded browser),
// driven by playwright-core: the palette, every edit dialog, the dialogs' data from the
// account (zones, tariffs, the week's chart) and the help; the dashboard example's page.
// Screenshots of the palette, the account and tariff dialogs and the dashboard go to
// docs/screenshots/ (the README shows them).
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { ACCOUNT_ID, CONFIG_TYPES, NODE_TYPES, ROOT, deploy, e2e, exampleFlows, getJson } from './env';

const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const SHOTS = path.join(ROOT, 'docs', 'screenshots');
const SIM_TARIFFS = ['DEMO-WORKDAY', 'DEMO-NIGHT', 'DEMO-WEEKEND', 'DEMO-GENERATOR', 'DEMO-FLAT', 'Q123456789', 'Q123456799'];
/** A deployed node of each type in the examples, whose dialog is opened. */
const DEPLOYED: Record<string, string> = {
  'easy-account': ACCOUNT_ID,
  'easy-prices': 'easy-example-spot-prices',
  'easy-tariff': 'relay-price',
  'easy-sensors': 'gen-sensors',
  'easy-cost': 'month-cost',
  'easy-plan': 'plan-heater',
  'easy-peak': 'peak-guard',
};

declare const RED: any; // the editor's global, inside page.evaluate
declare const $: any;
declare const document: any;
declare const window: any;
declare const getComputedStyle: (el: unknown) => { backgroundImage: string };

describe('e2e: the editor in chromium', function () {
  this.timeout(120_000);
  let context: BrowserContext | null = null;
  let page: Page;
  const errors: string[] = [];

  before(async function () {
    if (!fs.existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium (never a downloaded browser)`);
    await deploy(exampleFlows(e2e().simUrl));
    const profile = fs.mkdtempSync(path.join(e2e().tmp, 'chromium-profile-'));
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
      ],
      viewport: { width: 1400, height: 900 },
      locale: 'en-US',
    });
    page = context.pages()[0] ?? (await context.newPage());
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(`console: ${m.text()}`);
    });
    page.on('pageerror', (e) => errors.push(`page error: ${e.message}`));
    page.on('requestfailed', (r) => {
      if (r.url().startsWith(e2e().redUrl)) errors.push(`request failed: ${r.url()}`);
    });
    // nothing but loopback: no fonts, no catalogues, no telemetry from the editor
    await context.route(
      (url) => !/^https?:\/\/127\.0\.0\.1[:/]/.test(url.href) && !url.href.startsWith('data:'),
      (r) => r.abort(),
    );
    await page.goto(`${e2e().redUrl}/`, { waitUntil: 'load' });
    await page.waitForFunction(() => typeof RED !== 'undefined' && RED.nodes && RED.nodes.node('relay-price'), null, { timeout: 60_000 });
    await page.waitForSelector('.red-ui-palette-node[data-palette-type="easy-tariff"]', { timeout: 30_000 });
    fs.mkdirSync(SHOTS, { recursive: true });
  });

  after(async function () {
    if (context) await context.close().catch(() => undefined);
    context = null;
  });

  /** The open dialog as a screenshot for the docs, without notifications, tips or the mouse on it. */
  async function screenshotTray(file: string): Promise<void> {
    // hidden, not removed: Node-RED removes a notification itself when it times out, and
    // one already taken out of the page makes that throw (a page error)
    await page.evaluate(() => {
      $('.red-ui-notification').hide();
      $('.red-ui-help-tips').hide();
    });
    await page.mouse.move(0, 0);
    await page
      .locator('.red-ui-tray')
      .last()
      .screenshot({ path: path.join(SHOTS, file) });
  }

  /** A dashboard page as a screenshot for the docs, once its charts have drawn. */
  async function screenshotDashboard(dash: Page, file: string): Promise<void> {
    await dash.waitForTimeout(1500); // the chart's entry animation
    // hidden, not removed (Dashboard 2 still manages them): toasts, the PWA prompt, the pages' drawer
    await dash.evaluate(() =>
      document
        .querySelectorAll('.v-snackbar, .v-overlay, .pwa-toast, .v-navigation-drawer')
        .forEach((el: any) => (el.style.display = 'none')),
    );
    await dash.screenshot({ path: path.join(SHOTS, file), fullPage: true });
  }

  /** Opens a node's edit dialog (config nodes in their own tray), waits, checks no errors, closes. */
  async function withDialog(type: string, id: string, check: () => Promise<void>): Promise<void> {
    const before = errors.length;
    const isConfig = CONFIG_TYPES.includes(type);
    await page.evaluate(
      ([t, nodeId, config]) => {
        if (config) RED.editor.editConfig('', t, nodeId);
        else RED.editor.edit(RED.nodes.node(nodeId));
      },
      [type, id, isConfig] as const,
    );
    const form = isConfig ? '#node-config-dialog-edit-form' : '#dialog-form';
    await page.waitForSelector(`.red-ui-tray ${form}`, { state: 'visible', timeout: 20_000 });
    try {
      await check();
      assert.deepStrictEqual(errors.slice(before), [], `errors while the ${type} dialog was open`);
    } finally {
      await page.click(isConfig ? '#node-config-dialog-cancel' : '#node-dialog-cancel');
      await page.waitForFunction(() => $('.red-ui-tray').length === 0, null, { timeout: 10_000 });
    }
  }

  it('loads the editor without errors', function () {
    assert.deepStrictEqual(errors, []);
  });

  it('lands on the flows: the example tabs in the workspace, no dialog or notification over them', async function () {
    // the telemetry / update-notification consent dialog would show here with Node-RED's defaults
    await page.waitForTimeout(1500);
    const first = await page.evaluate(() => ({
      dialogs: $('.ui-dialog:visible, .red-ui-notification:visible')
        .map((_: number, el: any) => el.textContent.trim().slice(0, 80))
        .get(),
      tabs: $('#red-ui-workspace-tabs .red-ui-tab:visible')
        .map((_: number, el: any) => el.textContent.trim())
        .get(),
      nodes: $('#red-ui-workspace-chart .red-ui-flow-node-group').length,
    }));
    assert.deepStrictEqual(first.dialogs, []);
    assert.ok(
      first.tabs.some((t: string) => /Switch a relay when the price goes up/.test(t)),
      `tabs: ${first.tabs}`,
    );
    assert.ok(first.nodes > 0, 'the active flow shows its nodes');
    await page.screenshot({ path: path.join(SHOTS, 'first-screen.png') });
  });

  it('shows the flow nodes in the palette under energy (the account and prices are config nodes)', async function () {
    const palette = await page.evaluate(() =>
      $('#red-ui-palette-energy .red-ui-palette-node')
        .map((_: number, el: any) => el.getAttribute('data-palette-type'))
        .get(),
    );
    assert.deepStrictEqual([...palette].sort(), NODE_TYPES.filter((t) => !CONFIG_TYPES.includes(t)).sort());
    const icons = await page.evaluate(() =>
      $('#red-ui-palette-energy .red-ui-palette-icon')
        .map((_: number, el: any) => getComputedStyle(el).backgroundImage)
        .get(),
    );
    for (const icon of icons) assert.match(icon, /icons\/@tariffkit\/node-red-easy\/easy-/);
    for (const type of CONFIG_TYPES)
      assert.strictEqual(await page.evaluate((t: string) => RED.nodes.getType(t).category, type), 'config', type);
    const container = page.locator('#red-ui-palette-container-energy');
    await container.scrollIntoViewIfNeeded();
    await container.screenshot({ path: path.join(SHOTS, 'palette.png') });
  });

  // the README shows each node's dialog; these two have no test of their own that takes one
  const DIALOG_SHOTS: Record<string, { shot: string; ready: string }> = {
    'easy-sensors': { shot: 'sensors-dialog.png', ready: '#easy-sensors-list tr' },
    'easy-cost': { shot: 'cost-dialog.png', ready: '#easy-cost-rules tr' },
  };

  for (const type of NODE_TYPES) {
    it(`opens the ${type} dialog without console errors`, async function () {
      await withDialog(type, DEPLOYED[type], async () => {
        await page.waitForTimeout(500); // what the dialog loads from the admin routes
        const shot = DIALOG_SHOTS[type];
        if (!shot) return;
        await page.waitForSelector(`.red-ui-tray ${shot.ready}`, { timeout: 20_000 });
        await page.waitForTimeout(500);
        await screenshotTray(shot.shot);
      });
    });
  }

  it("lists every time zone in the account dialog, the machine's zone (the default) selected; Test connection works", async function () {
    await withDialog('easy-account', ACCOUNT_ID, async () => {
      await page.waitForFunction(() => $('#node-config-input-timezone option').length > 300, null, { timeout: 20_000 });
      const zone = await page.evaluate(() => {
        const sel = $('#node-config-input-timezone');
        return {
          value: sel.val(),
          text: sel.find('option:selected').text(),
          first: sel.find('option').first().val(),
          london: sel.find('option[value="Europe/London"]').length,
          count: sel.find('option').length,
        };
      });
      assert.strictEqual(zone.value, '', "the default (the machine's zone) is selected");
      // saved without a proxy setting (the examples): Node-RED's environment, not an empty dropdown
      assert.strictEqual(await page.evaluate(() => $('#node-config-input-proxyMode').val()), 'env');
      assert.strictEqual(zone.first, '');
      assert.strictEqual(zone.london, 1);
      const settings = await getJson<Record<string, unknown>>('/settings');
      const machine = settings.easyAccountMachineTimezone as string | undefined;
      if (machine) assert.ok(zone.text.includes(machine), `${zone.text} names ${machine}`);
      // Test connection with the deployed token (the editor only knows has_token)
      await page.click('#easy-account-test');
      await page.waitForFunction(() => !!$('#easy-account-test-result').attr('data-outcome'), null, { timeout: 20_000 });
      const outcome = await page.evaluate(() => ({
        code: $('#easy-account-test-result').attr('data-outcome'),
        text: $('#easy-account-test-result').text(),
      }));
      assert.strictEqual(outcome.code, 'ok', outcome.text);
      assert.match(outcome.text, /7/, outcome.text);
      await screenshotTray('account-dialog.png');
    });
  });

  it("lists the simulator's tariffs in a new, undeployed tariff node and draws the week's price chart", async function () {
    await page.evaluate(() => {
      RED.view.importNodes([
        {
          id: 'e2e-new-tariff',
          type: 'easy-tariff',
          z: RED.workspaces.active(),
          x: 400,
          y: 300,
          name: '',
          account: 'easy-example-account',
          tariff: '',
          refresh: 60,
          wires: [[]],
        },
      ]);
    });
    const id = await page.evaluate(() => {
      let found = RED.nodes.node('e2e-new-tariff');
      if (!found)
        RED.nodes.eachNode((n: any) => {
          if (n.type === 'easy-tariff' && n.changed && !found) found = n;
        });
      return found && found.id;
    });
    assert.ok(id, 'the new node is in the workspace');
    await withDialog('easy-tariff', id, async () => {
      // saved without the chart settings (as flows made before they existed): the default, not an empty invalid dropdown
      const chartDays = await page.evaluate(() => ({
        value: $('#node-input-chartDays').val(),
        invalid: $('#node-input-chartDays').hasClass('input-error'),
      }));
      assert.deepStrictEqual(chartDays, { value: '1', invalid: false });
      await page.waitForFunction(
        (n: number) => $('#node-input-tariff option').filter((_: number, o: any) => o.value).length >= n,
        SIM_TARIFFS.length,
        { timeout: 20_000 },
      );
      const options = await page.evaluate(() =>
        $('#node-input-tariff option')
          .map((_: number, o: any) => o.value)
          .get(),
      );
      for (const t of SIM_TARIFFS) assert.ok(options.includes(t), `${t} in ${options}`);
      await page.selectOption('#node-input-tariff', 'DEMO-WORKDAY');
      await page.waitForSelector('#easy-tariff-chart svg path.easy-chart-line', { timeout: 20_000 });
      const chart = await page.evaluate(() => ({
        paths: $('#easy-tariff-chart svg path.easy-chart-line').length,
        d: $('#easy-tariff-chart svg path.easy-chart-line').first().attr('d') || '',
        rules: $('#easy-tariff-rules tr').length,
      }));
      assert.ok(chart.paths >= 1);
      // DEMO-WORKDAY changes price four times every weekday: any 7 days hold at least 5
      // weekdays, so more than 10 steps at three levels
      assert.ok((chart.d.match(/H/g) ?? []).length > 10, `a week of steps: ${chart.d}`);
      const levels = new Set((chart.d.match(/(?:,|V)(\d+(?:\.\d+)?)/g) ?? []).map((v: string) => v.slice(1)));
      assert.strictEqual(levels.size, 3, `three price levels: ${chart.d}`);
      assert.ok(chart.rules >= 4, 'the rule table: a header and three rules');
      // the picture: no "Imported" notification over the dialog's title, no tip, no tooltip
      await page.evaluate(() => {
        $('.red-ui-notification').hide();
        $('.red-ui-help-tips').hide();
      });
      await page.mouse.move(0, 0);
      await page.waitForTimeout(300);
      await page.screenshot({ path: path.join(SHOTS, 'tariff-dialog.png') });
    });
    await page.evaluate(() => {
      const n = RED.nodes.node('e2e-new-tariff');
      if (n) {
        RED.nodes.remove(n.id);
        RED.view.redraw(true);
      }
    });
  });

  // The dashboard example's page, served by Dashboard 2 (the repository's devDependency,
  // found by Node-RED beside itself in node_modules): the price and both costs as text,
  // the next 24 h as a chart. Its screenshot is the README's.
  it("shows the dashboard example: price now, the next 24 h with the heater's plan, the generator, today's and this month's cost, the cost per day", async function () {
    const dash = await context!.newPage();
    const dashErrors: string[] = [];
    dash.on('pageerror', (e) => dashErrors.push(`page error: ${e.message}`));
    try {
      await dash.setViewportSize({ width: 1280, height: 960 });
      await dash.goto(`${e2e().redUrl}/e2e/dashboard/energy`, { waitUntil: 'load' });
      const text = await dash
        .waitForFunction(
          () => {
            const t = (document.body as any).innerText as string;
            return /Price now\s+[\d.]+ GBP\/kWh incl\. VAT/.test(t) &&
              /Today so far \(00:00 to now\)\s+GBP [\d,.]+ \([\d.]+ kWh\)/.test(t) &&
              /This month so far\s+GBP [\d,.]+ \([\d.]+ kWh\)/.test(t) &&
              /Heater planned\s+([^\n:]+: )?\d\d:\d\d–\d\d:\d\d/.test(t) &&
              /Generator\s+(running|stopped)/.test(t) &&
              /Generator ran today\s+[\d.]+ h in \d+ starts?/.test(t)
              ? t
              : null;
          },
          null,
          { timeout: 60_000 },
        )
        .then((h) => h.jsonValue());
      assert.match(text as string, /Next 24 hours/);
      assert.match(text as string, /This month, cost per day/);
      // both charts' canvases, drawn (echarts puts the series on a canvas of the chart's size)
      await dash.waitForFunction(
        () => Array.from(document.querySelectorAll('canvas')).filter((c: any) => c.width > 300 && c.height > 200).length >= 2,
        null,
        { timeout: 30_000 },
      );
      await screenshotDashboard(dash, 'dashboard.png');
      assert.deepStrictEqual(dashErrors, []);
    } finally {
      await dash.close();
    }
  });

  // The spot example's page: the stacked price with its parts, the list's end and the heater's
  // plan as text, the known hours as a chart whose series are the stack's lines and the plan.
  it("shows the spot example's page: the stacked price and its parts, prices known until, the plan, a chart of total, spot, fees and the planned blocks", async function () {
    const dash = await context!.newPage();
    const dashErrors: string[] = [];
    dash.on('pageerror', (e) => dashErrors.push(`page error: ${e.message}`));
    // Dashboard 2 keeps its charts in window.uiCharts when it thinks Cypress drives it
    await dash.addInitScript(() => (window.Cypress = true));
    try {
      await dash.setViewportSize({ width: 1280, height: 960 });
      await dash.goto(`${e2e().redUrl}/e2e/dashboard/spot`, { waitUntil: 'load' });
      const text = await dash
        .waitForFunction(
          () => {
            const t = (document.body as any).innerText as string;
            return /Price now\s+[\d.]+ GBP\/kWh incl\. VAT: spot [\d.-]+ \+ grid fees [\d.]+ \+ add-ons 0\.01 before VAT/.test(t) &&
              /Price list\s+prices known until (\d{4}-\d\d-\d\d )?\d\d:\d\d/.test(t) &&
              /Heater planned\s+([^\n:]+: )?\d\d:\d\d–\d\d:\d\d/.test(t)
              ? t
              : null;
          },
          null,
          { timeout: 60_000 },
        )
        .then((h) => h.jsonValue());
      assert.match(text as string, /Spot \+ grid fees, known hours/);
      // the chart's series: the stack's four lines and the planned blocks, each with points
      const series = await dash
        .waitForFunction(
          () => {
            const charts = Object.values(window.uiCharts || {}) as any[];
            const names = charts.flatMap((c) =>
              (c.chart.getOption().series || []).filter((x: any) => (x.data || []).length > 0).map((x: any) => String(x.name)),
            );
            return names.length >= 5 ? names : null;
          },
          null,
          { timeout: 30_000 },
        )
        .then((h) => h.jsonValue());
      assert.deepStrictEqual([...(series as string[])].sort(), [
        'fees GBP/kWh',
        'gross GBP/kWh',
        'heater planned',
        'net GBP/kWh',
        'spot GBP/kWh',
      ]);
      await screenshotDashboard(dash, 'spot-dashboard.png');
      assert.deepStrictEqual(dashErrors, []);
    } finally {
      await dash.close();
    }
  });

  it("marks on the plan dialog's chart the slots its settings would plan, and follows an edit", async function () {
    await withDialog('easy-plan', 'plan-heater', async () => {
      await page.waitForSelector('#easy-plan-chart svg rect.easy-chart-planned', { timeout: 20_000 });
      const before = await page.evaluate(() => ({
        slots: $('#easy-plan-chart svg rect.easy-chart-planned').length,
        note: $('#easy-plan-chart .easy-chart-plan').text(),
      }));
      // 3 h every night from 22:00 to 07:00 on the working-hours tariff: at least one slot a night
      assert.ok(before.slots >= 6, `slots: ${before.slots}`);
      assert.match(before.note, /slots this node would plan now/);
      // a slot is a block to the eye, not a hairline: over 7 days an hour is ~3 px
      const widths: number[] = await page.evaluate(() =>
        $('#easy-plan-chart svg rect.easy-chart-planned')
          .map((_: number, el: any) => el.getBoundingClientRect().width)
          .get(),
      );
      assert.ok(Math.min(...widths) >= 3, `planned slots drawn ${Math.min(...widths)} px wide`);
      assert.strictEqual(await page.evaluate(() => $('#easy-plan-chart svg rect.easy-chart-planned-area').length), before.slots);
      await page.evaluate(() => {
        $('.red-ui-notification').hide();
        $('.red-ui-help-tips').hide();
      });
      await page.mouse.move(0, 0);
      await page.locator('#easy-plan-chart').scrollIntoViewIfNeeded();
      await page
        .locator('.red-ui-tray')
        .last()
        .screenshot({ path: path.join(SHOTS, 'plan-dialog.png') });
      await page.fill('#node-input-durationHours', '10');
      await page.dispatchEvent('#node-input-durationHours', 'change');
      // longer than the window: marked under the settings, and the whole of each night planned
      await page.waitForFunction(
        () =>
          // between 22:00 and 07:00 the first window is the one under way: what is left of it is said
          /the window \(9 h\) is shorter than the run time \(10 h\): all of it is planned|only .+ of the window is left for 10 h/.test(
            $('#easy-plan-chart .easy-chart-plan').text(),
          ),
        null,
        { timeout: 20_000 },
      );
      assert.match(
        await page.evaluate(() => $('#easy-plan-checks').text()),
        /10 h is longer than the window \(9 h\): the whole window runs/,
      );
      assert.ok((await page.evaluate(() => $('#easy-plan-chart svg rect.easy-chart-planned').length)) >= 6);
      // a minimum block longer than the run time: the field is marked, and why is said
      await page.fill('#node-input-minBlockHours', '11');
      await page.dispatchEvent('#node-input-minBlockHours', 'change');
      assert.ok(await page.evaluate(() => $('#node-input-minBlockHours').hasClass('input-error')));
      assert.match(
        await page.evaluate(() => $('#easy-plan-checks').text()),
        /The minimum block \(11 h\) is longer than the run time \(10 h\)/,
      );
    });
  });

  for (const type of NODE_TYPES) {
    it(`shows the ${type} help in the help sidebar`, async function () {
      const expected = fs.readFileSync(path.join(ROOT, 'nodes', 'locales', 'en-US', `${type}.html`), 'utf8');
      const firstPara = /<p>([^<&]{20,})/.exec(expected)?.[1].trim().slice(0, 40) ?? '';
      await page.evaluate((t: string) => RED.sidebar.help.show(t), type);
      await page.waitForFunction(
        (p: string) => ($('.red-ui-sidebar-help-stack .red-ui-help').text() || '').replace(/\s+/g, ' ').includes(p),
        firstPara.replace(/\s+/g, ' '),
        { timeout: 10_000 },
      );
      const headings = await page.evaluate(() =>
        $('.red-ui-sidebar-help-stack .red-ui-help h3')
          .map((_: number, h: any) => h.textContent)
          .get(),
      );
      assert.ok(
        headings.some((h: string) => /Inputs|Outputs|Details|Configuration/.test(h)),
        `${type}: ${headings}`,
      );
    });
  }

  // Every example's tab as drawn: no node's box over another's, nor over the line under it
  // where its status text goes (the status texts of the deployed nodes are shown).
  it("lays out every example's tab so that no two nodes' boxes or status texts overlap", async function () {
    const tabs: Array<{ id: string; label: string }> = await page.evaluate(() =>
      RED.nodes.getWorkspaceOrder().map((id: string) => ({ id, label: RED.nodes.workspace(id).label })),
    );
    assert.ok(tabs.length >= 11, `tabs: ${tabs.map((t) => t.label)}`);
    const problems: string[] = [];
    for (const tab of tabs) {
      await page.evaluate((id) => RED.workspaces.show(id), tab.id);
      await page.waitForTimeout(400);
      const boxes: Array<{ id: string; node: number[]; status: number[] | null }> = await page.evaluate((z) => {
        const out: Array<{ id: string; node: number[]; status: number[] | null }> = [];
        const rect = (el: any) => {
          const r = el.getBoundingClientRect();
          return [r.left, r.top, r.right, r.bottom];
        };
        RED.nodes.eachNode((n: any) => {
          if (n.z !== z) return;
          const g = document.getElementById(n.id);
          const body = g && g.querySelector('.red-ui-flow-node');
          if (!body) return;
          const label = g.querySelector('.red-ui-flow-node-status-group');
          const text = label && label.textContent.trim() && label.style.display !== 'none' ? rect(label) : null;
          out.push({ id: n.id, node: rect(body), status: text });
        });
        return out;
      }, tab.id);
      assert.ok(boxes.length > 0, `${tab.label}: no nodes drawn`);
      const hit = (a: number[], b: number[]) => a[0] < b[2] && b[0] < a[2] && a[1] < b[3] && b[1] < a[3];
      for (let i = 0; i < boxes.length; i++) {
        for (let j = 0; j < boxes.length; j++) {
          if (i === j) continue;
          const [a, b] = [boxes[i], boxes[j]];
          if (j > i && hit(a.node, b.node)) problems.push(`${tab.label}: ${a.id} over ${b.id}`);
          if (a.status && hit(a.status, b.node)) problems.push(`${tab.label}: the status of ${a.id} under ${b.id}`);
          if (j > i && a.status && b.status && hit(a.status, b.status)) problems.push(`${tab.label}: the statuses of ${a.id} and ${b.id}`);
        }
      }
    }
    assert.deepStrictEqual(problems, []);
    await page.evaluate((id) => RED.workspaces.show(id), tabs[0].id);
  });

  /** Texts of the open dialog wider than the field that shows them: [field, text, text px, field px]. */
  async function cutTexts(selectors: string[]): Promise<Array<[string, string, number, number]>> {
    return page.evaluate((sels) => {
      const canvas = document.createElement('canvas').getContext('2d');
      const out: Array<[string, string, number, number]> = [];
      for (const sel of sels) {
        const el = document.querySelector(sel);
        if (!el || el.offsetParent === null) {
          out.push([sel, 'not shown', 0, 0]);
          continue;
        }
        const cs = window.getComputedStyle(el);
        canvas.font = `${cs.fontStyle} ${cs.fontWeight} ${cs.fontSize} ${cs.fontFamily}`;
        const room = el.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight) - (el.tagName === 'SELECT' ? 20 : 0);
        const texts = el.tagName === 'SELECT' ? Array.from(el.options).map((o: any) => o.text) : [el.placeholder];
        for (const text of texts) {
          const width = canvas.measureText(text).width;
          if (width > room) out.push([sel, text, Math.round(width), Math.round(room)]);
        }
      }
      return out;
    }, selectors);
  }

  it("shows the easy-cost dialog's mode choices and placeholders whole (generator report, daily charge)", async function () {
    await withDialog('easy-cost', 'month-cost', async () => {
      await page.selectOption('#node-input-mode', 'stream');
      await page.check('#node-input-generator');
      await page.waitForSelector('#node-input-dailyCharge', { state: 'visible' });
      await page.waitForSelector('#node-input-generatorGateway', { state: 'visible' });
      const cut = await cutTexts([
        '#node-input-mode',
        '#node-input-generatorGateway',
        '#node-input-generatorSensor',
        '#node-input-generatorOn',
        '#node-input-dailyCharge',
      ]);
      assert.deepStrictEqual(cut, []);
      await page.selectOption('#node-input-mode', 'range');
    });
  });

  it("easy-cost's export price: the export tariff is a dropdown of the account's tariffs, spot prices an easy-prices node with add-ons", async function () {
    await withDialog('easy-cost', 'month-cost', async () => {
      await page.selectOption('#node-input-exportPrice', 'tariff');
      await page.waitForSelector('#node-input-exportTariff', { state: 'visible' });
      // filled by the same request as the import tariff's dropdown: every tariff of the simulator
      await page.waitForFunction(
        (n: number) => $('#node-input-exportTariff option').filter((_: number, o: any) => o.value).length >= n,
        SIM_TARIFFS.length,
        { timeout: 20_000 },
      );
      const options = await page.evaluate(() =>
        $('#node-input-exportTariff option')
          .map((_: number, o: any) => o.value)
          .get(),
      );
      for (const t of SIM_TARIFFS) assert.ok(options.includes(t), `${t} in ${options}`);
      await page.selectOption('#node-input-exportTariff', 'DEMO-WORKDAY');
      assert.strictEqual(await page.evaluate(() => $('#node-input-exportTariff').val()), 'DEMO-WORKDAY');
      assert.strictEqual(await page.evaluate(() => $('#node-input-exportRate').is(':visible')), false);
      await page.selectOption('#node-input-exportPrice', 'prices');
      await page.waitForSelector('#node-input-exportAddOns', { state: 'visible' });
      // Node-RED's own dropdown of easy-prices config nodes, and the tariff's row hidden
      assert.ok(await page.evaluate(() => $('#node-input-exportPrices').is('select')));
      assert.strictEqual(await page.evaluate(() => $('#node-input-exportTariff').is(':visible')), false);
      assert.deepStrictEqual(await cutTexts(['#node-input-exportPrice', '#node-input-exportAddOns']), []);
    });
  });

  // The dashboard pages at a desktop's and a phone's width: every chart's title fits its chart.
  for (const width of [1280, 360]) {
    it(`fits every dashboard chart's and group's title at ${width} px, on every page of the examples`, async function () {
      const dash = await context!.newPage();
      // Dashboard 2 keeps its charts in window.uiCharts when it thinks Cypress drives it
      await dash.addInitScript(() => (window.Cypress = true));
      try {
        await dash.setViewportSize({ width, height: 800 });
        const cut: string[] = [];
        // every ui-page of the deployed examples (energy, generator, tariffs, peaks …)
        const pages = exampleFlows(e2e().simUrl)
          .filter((n) => n.type === 'ui-page')
          .map((n) => String(n.path).replace(/^\//, ''));
        assert.ok(pages.length >= 4, `pages: ${pages.join(', ')}`);
        for (const pagePath of pages) {
          await dash.goto(`${e2e().redUrl}/e2e/dashboard/${pagePath}`, { waitUntil: 'load' });
          await dash.waitForFunction(() => Object.keys(window.uiCharts || {}).length > 0, null, { timeout: 60_000 });
          await dash.waitForTimeout(1000);
          const titles: Array<{ text: string; width: number; room: number }> = await dash.evaluate(() => {
            const canvas = document.createElement('canvas').getContext('2d');
            return Object.values(window.uiCharts).map((c: any) => {
              const option = c.chart.getOption();
              const title = option.title && option.title[0] ? option.title[0] : { text: '' };
              const style = title.textStyle || {};
              canvas.font = `${style.fontWeight || 'bold'} ${style.fontSize || 18}px ${style.fontFamily || 'sans-serif'}`;
              return {
                text: String(title.text || ''),
                width: canvas.measureText(String(title.text || '')).width,
                room: c.chart.getWidth(),
              };
            });
          });
          assert.ok(titles.length > 0, `${pagePath}: no chart`);
          for (const t of titles) if (t.width > t.room) cut.push(`${pagePath}: "${t.text}" ${Math.round(t.width)} px in ${t.room} px`);
          // a group's title is cut with an ellipsis where it does not fit its card
          const groups: Array<{ text: string; width: number; room: number }> = await dash.evaluate(() =>
            [...document.querySelectorAll('.v-card-title')].map((e) => ({
              text: e.textContent!.trim(),
              width: e.scrollWidth,
              room: e.clientWidth,
            })),
          );
          assert.ok(groups.length > 0, `${pagePath}: no group title`);
          for (const g of groups) if (g.width > g.room + 1) cut.push(`${pagePath}: group "${g.text}" ${g.width} px in ${g.room} px`);
          // E2E_SHOTS=<dir>: the pages as a phone shows them, to look at
          if (process.env.E2E_SHOTS)
            await dash.screenshot({ path: path.join(process.env.E2E_SHOTS, `dashboard-${pagePath}-${width}.png`), fullPage: true });
        }
        assert.deepStrictEqual(cut, []);
      } finally {
        await dash.close();
      }
    });
  }

  it('logged no console error in the whole session', function () {
    assert.deepStrictEqual(errors, []);
  });
});
