// Run after `npm install` changes package-lock.json (`npm run lockfile:tidy`).
//
// The npm registry these machines use lacks some platform builds of optional native packages
// (e.g. rollup's and unrs-resolver's bindings for macOS, Windows, musl). `npm install` skips
// them silently and records no entry for them, but `npm ci` then refuses the lock file as out
// of sync. This drops, from each package's recorded optionalDependencies, the ones with no
// entry in the lock file, so `npm ci` installs exactly what `npm install` resolved.
import { readFileSync, writeFileSync } from 'node:fs';

const lockPath = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(lockPath, 'utf8'));
const recorded = new Set(Object.keys(lock.packages));

/** Whether `name`, required from the package at `path`, resolves to a recorded entry (Node's lookup). */
function isRecorded(path, name) {
	let dir = path;
	for (;;) {
		if (recorded.has(`${dir ? `${dir}/` : ''}node_modules/${name}`)) return true;
		if (!dir) return false;
		const parent = dir.lastIndexOf('/node_modules/');
		dir = parent < 0 ? '' : dir.slice(0, parent);
	}
}

const dropped = [];
for (const [path, entry] of Object.entries(lock.packages)) {
	for (const name of Object.keys(entry.optionalDependencies ?? {})) {
		if (!isRecorded(path, name)) {
			delete entry.optionalDependencies[name];
			dropped.push(name);
		}
	}
}
writeFileSync(lockPath, `${JSON.stringify(lock, null, '\t')}\n`);
console.log(`Dropped ${dropped.length} optional dependencies the registry does not have.`);
