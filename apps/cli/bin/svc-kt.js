#!/usr/bin/env node
import { alias } from "../dist/alias.js";

await alias("svc-kt");
