/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/require-node-api-error --
   development tooling, not a node: runs in Node, not in n8n */
import { execFile } from 'node:child_process';
import {
	copyFileSync,
	existsSync,
	mkdirSync,
	mkdtempSync,
	readdirSync,
	rmSync,
	symlinkSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export const PROJECT_ROOT = resolve(__dirname, '..', '..');

export interface Packed {
	/** The unpacked tarball: what `npm install n8n-nodes-compliance-records` would put in node_modules. */
	folder: string;
	/** Its files, relative, with forward slashes, sorted. */
	files: string[];
	remove(): void;
}

/**
 * The package as `npm publish` would publish it from this working tree: its files (those git
 * tracks or would track) copied to a temporary folder, where `npm pack` builds them (the
 * `prepack` script) and packs them; then unpacked. The working tree's own `dist/` is untouched.
 */
export async function pack(): Promise<Packed> {
	const temporary = mkdtempSync(join(tmpdir(), 'compliance-records-pack-'));
	try {
		const checkout = join(temporary, 'checkout');
		const { stdout } = await run(
			'git',
			['ls-files', '-z', '--cached', '--others', '--exclude-standard'],
			{
				cwd: PROJECT_ROOT,
				maxBuffer: 16 * 1024 * 1024,
			},
		);
		for (const file of stdout.split('\0')) {
			// Skip a file deleted from the working tree but not yet from git's index.
			if (!file || !existsSync(join(PROJECT_ROOT, file))) continue;
			mkdirSync(dirname(join(checkout, file)), { recursive: true });
			copyFileSync(join(PROJECT_ROOT, file), join(checkout, file));
		}
		// A junction needs no privileges on Windows; elsewhere it is a plain symlink.
		symlinkSync(join(PROJECT_ROOT, 'node_modules'), join(checkout, 'node_modules'), 'junction');

		// Explicitly not a dry run: `npm publish --dry-run` runs these tests (prepublishOnly) and
		// passes its dry run on to the npm commands they start.
		await npm(['pack', '--silent', '--dry-run=false', '--pack-destination', temporary], checkout);
		const tarball = readdirSync(temporary).find((name) => name.endsWith('.tgz'));
		if (!tarball) throw new Error(`npm pack left no tarball in ${temporary}`);
		// A relative name: Git for Windows' tar reads "C:" in an absolute one as a host name.
		await run('tar', ['-xzf', tarball], { cwd: temporary });

		const folder = join(temporary, 'package');
		const files = readdirSync(folder, { recursive: true, withFileTypes: true })
			.filter((entry) => entry.isFile())
			.map((entry) =>
				join(entry.parentPath, entry.name)
					.slice(folder.length + 1)
					.split('\\')
					.join('/'),
			)
			.sort();
		return { folder, files, remove: () => rmSync(temporary, { recursive: true, force: true }) };
	} catch (error) {
		rmSync(temporary, { recursive: true, force: true });
		throw error;
	}
}

/** npm: the one running these tests when there is one; on Windows `npm` is a .cmd file, which needs a shell. */
function npm(args: string[], cwd: string) {
	const cli = process.env.npm_execpath;
	return cli?.endsWith('.js')
		? run(process.execPath, [cli, ...args], { cwd })
		: run('npm', args, { cwd, shell: process.platform === 'win32' });
}
