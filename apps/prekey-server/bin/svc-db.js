#!/usr/bin/env node
// svc-db is now svc db: this forward keeps scripts written against this path working.
import "../../cli/bin/svc-db.js";
