#!/usr/bin/env node
// svc-transfer is now svc transfer: this forward keeps scripts written against this path working.
import "../../cli/bin/svc-transfer.js";
