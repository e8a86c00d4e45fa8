/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-dangerous-functions -- development tooling: runs in Node, not in n8n */
import { execFileSync } from 'node:child_process';
import path from 'node:path';

export interface CertificateFiles {
	keyFile: string;
	certFile: string;
}

/** Where {@link makeTestCertificate} puts its files in `dir`. */
export const certificateFilesIn = (dir: string): CertificateFiles => ({
	keyFile: path.join(dir, 'key.pem'),
	certFile: path.join(dir, 'cert.pem'),
});

/**
 * A self-signed certificate for 127.0.0.1 and localhost (RSA 2048, valid one day), made with
 * `openssl` into `dir`: a benchmark's TLS server presents it, and its client trusts it through
 * NODE_EXTRA_CA_CERTS, so certificates are verified as in production.
 */
export function makeTestCertificate(dir: string): CertificateFiles {
	const files = certificateFilesIn(dir);
	execFileSync(
		'openssl',
		[
			'req',
			'-x509',
			'-newkey',
			'rsa:2048',
			'-nodes',
			'-days',
			'1',
			'-subj',
			'/CN=127.0.0.1',
			'-addext',
			'subjectAltName=IP:127.0.0.1,DNS:localhost',
			'-keyout',
			files.keyFile,
			'-out',
			files.certFile,
		],
		{ stdio: ['ignore', 'ignore', 'pipe'] },
	);
	return files;
}
