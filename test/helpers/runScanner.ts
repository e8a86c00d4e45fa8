/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals -- development tooling: runs in Node, not in n8n */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';

import { PROJECT_ROOT } from './pack';

/**
 * Runs test/helpers/scanner.mjs (an ES module: n8n's scanner and the lint of what is shipped) in a
 * child process with `request` on its stdin, and answers what it printed. Without jest's
 * NODE_ENV=test, under which eslint-plugin-n8n-nodes-base checks made-up file names; its temporary
 * files in `tmp` when given.
 */
export async function runScanner<Answer>(request: object, tmp?: string): Promise<Answer> {
	const pending = promisify(execFile)(
		process.execPath,
		[join(PROJECT_ROOT, 'test', 'helpers', 'scanner.mjs')],
		{
			cwd: PROJECT_ROOT,
			env: {
				...process.env,
				NODE_ENV: undefined,
				...(tmp !== undefined && { TMPDIR: tmp, TEMP: tmp, TMP: tmp }),
			},
			maxBuffer: 16 * 1024 * 1024,
		},
	);
	pending.child.stdin?.end(JSON.stringify(request));
	return JSON.parse((await pending).stdout) as Answer;
}
