import { insecureUrlProblem } from '../../shared/service';

describe('Which base URLs may receive credentials', () => {
	it.each([
		'https://api.example.com/v1',
		'http://localhost:4010',
		'http://LOCALHOST',
		'http://127.0.0.1:4010/v1',
		'http://127.8.9.10',
		'http://[::1]:4010',
	])('%s is allowed', (url) => {
		expect(insecureUrlProblem(url)).toBeUndefined();
	});

	it.each([
		'http://api.example.com',
		'http://0.0.0.0:4010',
		'http://10.0.0.5',
		'http://localhost.example.com',
		'http://127.0.0.1.example.com',
		'ftp://127.0.0.1',
	])('%s is refused', (url) => {
		expect(insecureUrlProblem(url)).toMatch(
			/^Refusing to send credentials to .+: only https:\/\/ is allowed/,
		);
	});

	it('a base URL that is not a URL is refused', () => {
		expect(insecureUrlProblem('api.example.com')).toBe(
			'"api.example.com" is not a valid URL. Enter the service\'s full base URL, e.g. https://api.example.com/v1.',
		);
	});
});
