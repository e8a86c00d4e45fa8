/**
 * The end-to-end suite on each n8n line (part of `npm run test:e2e`): the package installed into
 * n8n 1.123.81 and 2.40.7, run side by side against one sandbox (test/e2e-lines/environment.ts).
 */
module.exports = require('./test/helpers/e2eSuiteConfig')('e2e-lines', 300000);
