/**
 * Built-in `calculator` tool: evaluates an arithmetic expression with a small recursive-descent
 * parser (never `eval`). Grammar: numbers (with exponent), `+ - * / % ^` (right-associative power),
 * parentheses, unary minus, constants `pi` and `e`, functions `sqrt abs round floor ceil ln log log10
 * log2 exp sin cos tan asin acos atan min max pow`. Errors name the position.
 */
import type { AgentTool } from '../contracts.js';

/** A rejected expression. */
export class CalcError extends Error {}

const FUNCS: Record<string, (...a: number[]) => number> = {
  sqrt: Math.sqrt, abs: Math.abs, round: Math.round, floor: Math.floor, ceil: Math.ceil, ln: Math.log, log: Math.log10, log10: Math.log10,
  log2: Math.log2, exp: Math.exp, sin: Math.sin, cos: Math.cos, tan: Math.tan, asin: Math.asin, acos: Math.acos, atan: Math.atan,
  min: Math.min, max: Math.max, pow: Math.pow,
};
const CONSTS: Record<string, number> = { pi: Math.PI, e: Math.E, tau: 2 * Math.PI };

/**
 * Evaluate `expr`.
 * @throws CalcError on a syntax error, an unknown name, an over-long input or a non-finite result.
 * @example evaluate('2 * (3 + 4) ^ 2') // 98
 */
export function evaluate(expr: string): number {
  if (expr.length > 1000) throw new CalcError('expression longer than 1000 characters');
  let i = 0;
  let depth = 0;
  const ws = (): void => { while (i < expr.length && /\s/.test(expr[i]!)) i++; };
  const peek = (): string => { ws(); return expr[i] ?? ''; };
  const fail = (msg: string): never => { throw new CalcError(`${msg} at position ${i}`); };

  function primary(): number {
    const c = peek();
    if (c === '(') {
      i++;
      if (++depth > 100) fail('nesting too deep');
      const v = sum();
      if (peek() !== ')') fail('expected )');
      i++; depth--;
      return v;
    }
    if (c === '-') { i++; return -power(); }
    if (c === '+') { i++; return power(); }
    const num = /^(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?/.exec(expr.slice(i));
    if (num) { i += num[0].length; return Number(num[0]); }
    const name = /^[A-Za-z_][A-Za-z0-9_]*/.exec(expr.slice(i));
    if (name) {
      i += name[0].length;
      const id = name[0].toLowerCase();
      if (peek() === '(') {
        const fn = FUNCS[id];
        if (!fn) fail(`unknown function ${name[0]}`);
        i++;
        const args: number[] = [];
        if (peek() !== ')') {
          for (;;) {
            args.push(sum());
            if (peek() === ',') { i++; continue; }
            break;
          }
        }
        if (peek() !== ')') fail('expected )');
        i++;
        return fn!(...args);
      }
      if (id in CONSTS) return CONSTS[id]!;
      fail(`unknown name ${name[0]}`);
    }
    return fail(c ? `unexpected "${c}"` : 'unexpected end');
  }
  function power(): number {
    const base = primary();
    if (peek() === '^' || expr.startsWith('**', i)) {
      i += expr[i] === '^' ? 1 : 2;
      return Math.pow(base, unary());
    }
    return base;
  }
  function unary(): number {
    const c = peek();
    if (c === '-') { i++; return -unary(); }
    if (c === '+') { i++; return unary(); }
    return power();
  }
  function product(): number {
    let v = unary();
    for (;;) {
      const c = peek();
      if (c === '*' && expr[i + 1] !== '*') { i++; v *= unary(); } else if (c === '/') { i++; v /= unary(); } else if (c === '%') { i++; v %= unary(); } else return v;
    }
  }
  function sum(): number {
    let v = product();
    for (;;) {
      const c = peek();
      if (c === '+') { i++; v += product(); } else if (c === '-') { i++; v -= product(); } else return v;
    }
  }
  const v = sum();
  if (peek() !== '') fail(`unexpected "${peek()}"`);
  if (!Number.isFinite(v)) throw new CalcError('result is not a finite number');
  return v;
}

/** The `calculator` tool module. */
export const calculatorTool: AgentTool = {
  definition: {
    type: 'function',
    function: {
      name: 'calculator',
      description: 'Evaluate an arithmetic expression exactly (use for any calculation). Supports + - * / % ^, parentheses, pi, e, sqrt, ln, log, sin, cos, tan, min, max, round.',
      parameters: {
        type: 'object',
        properties: { expression: { type: 'string', description: 'The expression, e.g. "(17 * 23) / 4"' } },
        required: ['expression'],
        additionalProperties: false,
      },
    },
  },
  policy: 'auto',
  execute(args) {
    if (typeof args.expression !== 'string') throw new CalcError('expression must be a string');
    const v = evaluate(args.expression);
    return JSON.stringify({ expression: args.expression, result: Number.isInteger(v) ? v : Number(v.toPrecision(15)) });
  },
};
