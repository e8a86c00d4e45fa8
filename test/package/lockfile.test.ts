/* eslint-disable @n8n/community-nodes/no-restricted-imports -- development tooling: runs in Node, not in n8n */
/**
 * After `npm ci`, the toolchain works on the platforms contributors and CI use: macOS on Apple
 * silicon and on Intel, Windows x64 and Linux x64. A native package (rollup, esbuild,
 * unrs-resolver...) lists one build per platform as optional dependencies, and npm installs the
 * one for the machine it runs on, from those package-lock.json records. A build missing there
 * is skipped without a word, and the tool fails on that platform (docs/development.md, "The lock
 * file").
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { PROJECT_ROOT } from '../helpers/pack';

interface LockEntry {
	version?: string;
	os?: string[];
	cpu?: string[];
	libc?: string[];
	optionalDependencies?: Record<string, string>;
}

interface Platform {
	name: string;
	os: string;
	cpu: string;
	libc?: string;
}

const platforms: Platform[] = [
	{ name: 'macOS arm64', os: 'darwin', cpu: 'arm64' },
	{ name: 'macOS x64', os: 'darwin', cpu: 'x64' },
	{ name: 'Windows x64', os: 'win32', cpu: 'x64' },
	{ name: 'Linux x64', os: 'linux', cpu: 'x64', libc: 'glibc' },
];

const entries = (
	JSON.parse(readFileSync(join(PROJECT_ROOT, 'package-lock.json'), 'utf8')) as {
		packages: Record<string, LockEntry>;
	}
).packages;

/** The entry Node's module lookup finds for `name` required from the package at `path` (nested first, then upwards). */
function resolveFrom(path: string, name: string): LockEntry | undefined {
	for (let folder = path; ; ) {
		const entry = entries[`${folder ? `${folder}/` : ''}node_modules/${name}`];
		if (entry || !folder) return entry;
		const parent = folder.lastIndexOf('/node_modules/');
		folder = parent < 0 ? '' : folder.slice(0, parent);
	}
}

function runsOn(entry: LockEntry, platform: Platform): boolean {
	const allows = (list: string[] | undefined, value: string | undefined) =>
		!list || !value || list.includes(value);
	return (
		allows(entry.os, platform.os) &&
		allows(entry.cpu, platform.cpu) &&
		allows(entry.libc, platform.libc)
	);
}

/** The optional dependencies the lock file lists for a package, each with the entry it resolves to. */
const optionals = Object.entries(entries).flatMap(([path, entry]) =>
	Object.entries(entry.optionalDependencies ?? {}).map(([name, spec]) => ({
		path,
		name,
		spec,
		resolved: resolveFrom(path, name),
	})),
);

/**
 * Packages that ship a build per platform: optional dependencies made for one system and CPU.
 * (fsevents, for any macOS CPU, is macOS's file-watching extra, not a build of its dependents.)
 */
const families = Object.entries(entries).flatMap(([path, entry]) => {
	const builds = optionals
		.filter((optional) => optional.path === path && optional.resolved?.cpu)
		// A build is the one its package was released with: exactly the version it asks for.
		.filter(({ spec, resolved }) => !/^\d+\.\d+\.\d+$/.test(spec) || resolved?.version === spec)
		.map(({ resolved }) => resolved as LockEntry);
	const name = path.replace(/^.*node_modules\//, '');
	return builds.length > 0 ? [{ name, family: `${name}@${entry.version} (${path})`, builds }] : [];
});

test('every optional dependency it lists has an entry of its own, as npm ci requires', () => {
	expect(
		optionals.filter((optional) => !optional.resolved).map(({ path, name }) => `${path} → ${name}`),
	).toEqual([]);
});

test("the native families found include the toolchain's: rollup (tsup), esbuild (tsup, tsx), unrs-resolver (lint, jest)", () => {
	expect(families.map(({ name }) => name)).toEqual(
		expect.arrayContaining(['rollup', 'esbuild', 'unrs-resolver']),
	);
});

test.each(platforms)('every native family has a build for $name', (platform) => {
	const without = families.filter(({ builds }) => !builds.some((build) => runsOn(build, platform)));
	expect(without.map(({ family }) => family)).toEqual([]);
});
