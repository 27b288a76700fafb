#!/usr/bin/env node
// svc-kt is now svc kt: this forward keeps scripts written against this path working.
import "../../cli/bin/svc-kt.js";
