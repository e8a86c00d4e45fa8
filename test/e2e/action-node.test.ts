/**
 * Every operation of the Compliance Records node in the real n8n 2.40.7, the package linked as
 * `n8n-node dev` links it (see operations.ts).
 */
import { newApiKeyCredential } from '../helpers/sandboxControl';
import { e2e, runWorkflow, sandboxRequests, signedIn } from './environment';
import { describeEveryOperation } from './operations';

describeEveryOperation({
	nodeType: 'CUSTOM.complianceRecords',
	run: async (workflow) => await runWorkflow(await signedIn(), workflow),
	newApiKeyCredential: async (name) =>
		await newApiKeyCredential(await signedIn(), e2e().sandbox.baseUrl, name),
	baseUrl: () => e2e().sandbox.baseUrl,
	sandboxRequests,
});
