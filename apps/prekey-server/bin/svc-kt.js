#!/usr/bin/env node
import "../dist/kt-monitor/cli.js";
