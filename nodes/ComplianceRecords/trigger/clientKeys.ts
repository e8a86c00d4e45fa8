import { createHash } from 'crypto';

/** 48 bits of SHA-256: compared only within one event time, so collisions are negligible. */
export const CLIENT_KEY_LENGTH = 8;
export function clientKey(clientId: string): string {
	return createHash('sha256').update(clientId).digest('base64url').slice(0, CLIENT_KEY_LENGTH);
}

/** `{ label: the group's keys, sorted and concatenated }`. */
export function encodeKeyGroups(
	groups: Iterable<[string, Iterable<string>]>,
): Record<string, string> {
	const encoded: Record<string, string> = {};
	for (const [label, keys] of [...groups].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
		encoded[label] = [...keys].sort().join('');
	}
	return encoded;
}

export function decodeKeyGroups(
	encoded: unknown,
	isLabel: (label: string) => boolean,
): Map<string, string[]> | undefined {
	if (typeof encoded !== 'object' || encoded === null || Array.isArray(encoded)) return undefined;
	const groups = new Map<string, string[]>();
	for (const [label, keys] of Object.entries(encoded)) {
		if (!isLabel(label) || typeof keys !== 'string' || keys.length % CLIENT_KEY_LENGTH !== 0)
			return undefined;
		const group: string[] = [];
		for (let at = 0; at < keys.length; at += CLIENT_KEY_LENGTH)
			group.push(keys.slice(at, at + CLIENT_KEY_LENGTH));
		groups.set(label, group);
	}
	return groups;
}
