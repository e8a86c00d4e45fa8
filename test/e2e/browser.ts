/* eslint-disable @n8n/community-nodes/no-restricted-imports -- development tooling: runs in Node, not in n8n */
/**
 * n8n's editor and forms in a real browser: Debian's Chromium, headless, driven by
 * playwright-core (scripts/test-e2e.sh installs Chromium when it is missing).
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';

import { chromium, selectors, type Browser, type Page } from 'playwright-core';

import { DEMO_OWNER } from '../helpers/n8n/demo';
import { ARTIFACTS_DIR, e2e } from './environment';

export const SCREENSHOTS_DIR = join(ARTIFACTS_DIR, 'screenshots');

// n8n's editor marks its elements with data-test-id (Playwright's default is data-testid).
selectors.setTestIdAttribute('data-test-id');

export async function launchBrowser(): Promise<Browser> {
	return await chromium.launch({
		executablePath: '/usr/bin/chromium',
		args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
	});
}

export async function newPage(browser: Browser): Promise<Page> {
	// A context of its own (not browser.newPage()'s): n8n opens popups, e.g. for OAuth2.
	const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
	const page = await context.newPage();
	page.setDefaultTimeout(20_000);
	return page;
}

/** Signs in to the editor as the demo owner. */
export async function signInToEditor(page: Page): Promise<void> {
	await page.goto(`${e2e().n8nUrl}/signin`);
	await page.locator('input[name=emailOrLdapLoginId]').fill(DEMO_OWNER.email);
	await page.locator('input[name=password]').fill(DEMO_OWNER.password);
	await page.getByRole('button', { name: /sign in/i }).click();
	await page.waitForURL(/\/home\//);
}

/** Saves a screenshot under test-artifacts/e2e/screenshots/. */
export async function screenshot(page: Page, name: string): Promise<string> {
	mkdirSync(SCREENSHOTS_DIR, { recursive: true });
	const path = join(SCREENSHOTS_DIR, `${name}.png`);
	await page.mouse.move(0, 0); // no hover effect on the last button clicked
	await page.waitForTimeout(400); // the editor's fade transitions end: a picture, not a check
	await page.screenshot({ path });
	return path;
}
