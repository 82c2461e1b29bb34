/** The team hub's commands in the command table (issue 30; DESIGN.md "Command line"). */
import {
  DATA_DIR,
  EXIT_CODES,
  PORT,
  READY_LINE,
  type CommandDef,
  type FlagDef,
  type GroupDef,
} from './table-parts';

const STORE_URL = {
  type: 'string',
  value: 'postgres://…',
  about: 'the hub’s PostgreSQL database (with serve --store); else the profile’s members file',
} as const satisfies FlagDef;

export const TEAM_ADD = {
  name: 'team add',
  args: 'NAME',
  positionals: 1,
  about: 'a member of the team hub; prints their token once (only its SHA-256 is stored)',
  flags: {
    role: { type: 'string', value: 'viewer|operator|admin', required: true, about: 'what they may do' },
    json: { type: 'boolean', about: 'print {"name","role","token"}' },
    store: STORE_URL,
    'data-dir': DATA_DIR,
  },
  notes: ['Give the token to the member over a channel you trust; it is never shown again.', EXIT_CODES],
} as const satisfies CommandDef;

export const TEAM_LIST = {
  name: 'team list',
  about: 'the hub’s members and their roles (never a token)',
  flags: {
    json: { type: 'boolean', about: 'print [{"name","role","created_at"}]' },
    store: STORE_URL,
    'data-dir': DATA_DIR,
  },
  notes: [EXIT_CODES],
} as const satisfies CommandDef;

export const TEAM_REMOVE = {
  name: 'team remove',
  args: 'NAME',
  positionals: 1,
  about: 'removes a member: their token stops working at their next request, on every hub',
  flags: { store: STORE_URL, 'data-dir': DATA_DIR },
  notes: [EXIT_CODES],
} as const satisfies CommandDef;

export const TEAM = {
  name: 'team',
  about: 'the members of a team hub (serve --team)',
  subcommands: [TEAM_ADD, TEAM_LIST, TEAM_REMOVE],
} as const satisfies GroupDef;

export const ATTACH = {
  name: 'attach',
  args: 'HUB_URL',
  positionals: 1,
  about: 'a team hub’s pages on this laptop, on loopback, the member token kept in this process',
  flags: {
    token: { type: 'string', value: 'TOKEN', required: true, about: 'your member token (from team add)' },
    'forward-to': {
      type: 'string',
      value: 'URL',
      about: 'your own backend: the hub relays the callbacks and notifications your routes claim to it',
    },
    route: {
      type: 'string',
      value: 'obj=GLOB|sub=GLOB',
      multiple: true,
      about:
        'what the hub relays here (repeatable): callbacks whose token’s obj or sub matches GLOB (* and ?, case-sensitive); obj=* or sub=* also takes notifications',
    },
    'ui-port': {
      type: 'string',
      value: 'PORT',
      default: '0',
      about: 'the local page (the URL it prints)',
      range: PORT,
    },
    json: { type: 'boolean', about: 'print only the ready line {"ready":true,"ui":…,"hub":…}' },
  },
  notes: [
    READY_LINE,
    'A hub with a private CA: NODE_EXTRA_CA_CERTS=ca.pem. A lost connection is retried with backoff.',
    'Routes need --forward-to and the operator role; the most specific glob wins, then the oldest route. A laptop that does not answer within the 1 s budget is answered for by the hub (route.down, route.late events).',
    EXIT_CODES,
  ],
} as const satisfies CommandDef;
