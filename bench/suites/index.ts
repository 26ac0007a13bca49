// Every suite, in the order `npm run bench` runs them.
import { giouSuite } from "./giou.js";
import { reluSuite } from "./relu.js";
import { launchSuite } from "./launch.js";
import { avgpoolSuite } from "./avgpool.js";
import { addSuite } from "./add.js";
import { checksSuite } from "./checks.js";
import { mlpSuite } from "./mlp.js";
import { nkiSuite } from "./nki.js";
import { nkiChecksSuite } from "./nki-checks.js";
import { buildSuite } from "./build.js";
import type { Suite } from "../suite.js";

/** All suites, by the name `npm run bench -- <name>` takes. */
export const SUITES: Suite[] = [giouSuite, reluSuite, launchSuite, avgpoolSuite, addSuite, checksSuite, mlpSuite, nkiSuite, nkiChecksSuite, buildSuite];
