#!/usr/bin/env node
// The sandbox runs from its TypeScript source: tsx compiles it on the fly, so there is no build.
require('tsx/cjs');
require('../src/cli.ts');
