/** The only version the service accepts. */
const API_VERSION = '1.0.0';

export const SERVICE_HEADERS = {
	'accept-version': API_VERSION,
	accept: 'application/json',
} as const;

/** How every base URL is read. */
export function trimmedUrl(url: unknown): string {
	return String(url ?? '')
		.trim()
		.replace(/\/+$/, '');
}

/** {@link trimmedUrl} as an n8n expression, for credential fields computed from the URL. */
export function trimmedUrlExpression(reference: string): string {
	return `String(${reference} ?? "").trim().replace(/\\/+$/, "")`;
}

function isLoopbackHost(hostname: string): boolean {
	const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
	return host === 'localhost' || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host);
}

/** Anything but https, or http to this machine (a sandbox), sends the key or token in clear. */
export function insecureUrlProblem(url: string): string | undefined {
	let parsed: URL;
	try {
		parsed = new URL(url);
	} catch {
		return `"${url}" is not a valid URL. Enter the service's full base URL, e.g. https://api.example.com/v1.`;
	}
	if (parsed.protocol === 'https:') return undefined;
	if (parsed.protocol === 'http:' && isLoopbackHost(parsed.hostname)) return undefined;
	return `Refusing to send credentials to ${parsed.protocol}//${parsed.host}: only https:// is allowed (plain http:// only for localhost, 127.x.x.x or [::1]). Change the credential's 'Base URL' to its https:// address.`;
}
