#!/usr/bin/env node
import "../dist/db-move/main.js";
