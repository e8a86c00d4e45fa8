import { serviceWords } from '../../../../nodes/ComplianceRecords/transport/answers';

describe('Bodies other services answer with', () => {
	const words = (body: unknown, contentType = 'application/json') =>
		serviceWords({ body, headers: { 'content-type': contentType } });

	it.each([
		['a message at the top', { message: 'Unknown partner' }, 'Unknown partner'],
		[
			'a nested error object',
			{ error: { code: 'BAD_REQUEST', message: 'Unknown partner' } },
			'Unknown partner',
		],
		[
			'an OAuth-style error',
			{ error: 'invalid_request', error_description: 'Unknown partner' },
			'Unknown partner',
		],
		['a bare error string', { error: 'Unknown partner' }, 'Unknown partner'],
		[
			'RFC 9457 problem details with invalid params',
			{
				type: 'about:blank',
				title: 'Bad Request',
				status: 400,
				detail: 'Validation failed',
				'invalid-params': [{ name: 'partnerId', reason: 'is unknown' }],
			},
			'Validation failed: partnerId: is unknown',
		],
		[
			'problem details with only a title',
			{ type: 'about:blank', title: 'Conflict', status: 409 },
			'Conflict',
		],
		[
			'a JSON:API list',
			{
				errors: [
					{
						status: '400',
						title: 'Invalid',
						detail: 'is unknown',
						source: { pointer: '/data/partnerId' },
					},
				],
			},
			'/data/partnerId: is unknown',
		],
		[
			'a list with more than three entries',
			{ errors: ['a', 'b', 'c', 'd', 'e'].map((field) => ({ field, message: 'is required' })) },
			'a: is required; b: is required; c: is required (and 2 more)',
		],
		['a list of strings', ['first is wrong', 'second is wrong'], 'first is wrong; second is wrong'],
		[
			'a validation list with locations',
			{ detail: [{ loc: ['body', 'partnerId'], msg: 'is unknown' }] },
			'body.partnerId: is unknown',
		],
	])('%s', (_case, body, expected) => {
		expect(words(body)).toBe(expected);
	});

	it('plain text, its whitespace folded', () => {
		expect(words('  Partner\n  is unknown ', 'text/plain')).toBe('Partner is unknown');
	});

	it('JSON sent as text', () => {
		expect(words('{"message":"Unknown partner"}', 'text/plain')).toBe('Unknown partner');
	});

	it('an HTML page without a content type, its script and style left out', () => {
		const page =
			'<!DOCTYPE html><html><head><title>Bad Gateway</title><style>p{color:red}</style><script>var x = "<p>no</p>"</script></head>' +
			'<body><h1>Bad Gateway</h1><p>The upstream server sent an invalid answer &amp; was dropped.</p></body></html>';

		expect(words(page, '')).toBe(
			'Bad Gateway: The upstream server sent an invalid answer & was dropped. (an HTML page, likely from a proxy or gateway in front of the service)',
		);
	});

	it('an empty body, or one with no words: none', () => {
		expect(words('')).toBeUndefined();
		expect(words({ code: 17 })).toBeUndefined();
		expect(words(undefined)).toBeUndefined();
	});
});
