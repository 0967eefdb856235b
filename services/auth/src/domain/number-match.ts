/**
 * Number matching (issue 14 item 3): the browser shows one number from 10 to 99; the phone shows it
 * among two decoys, all distinct and shuffled, and the user must pick the browser's. A user
 * approving a push they did not start (push fatigue) has a one-in-three chance at best, and a wrong
 * pick denies the login.
 */
import { randomInt } from 'node:crypto';

/** Smallest number shown. */
export const NUMBER_MIN = 10;
/** Largest number shown. */
export const NUMBER_MAX = 99;
/** Numbers the phone shows. */
export const NUMBER_CHOICES = 3;

/**
 * A number to match and the three the phone shows (distinct, in [10, 99], shuffled with
 * Fisher-Yates, one of them the number).
 * @param rand uniform integer in [0, n) (default: `crypto.randomInt`); a test seam.
 */
export function numberMatch(rand: (n: number) => number = randomInt): { number: number; numbers: number[] } {
  const span = NUMBER_MAX - NUMBER_MIN + 1;
  const picked = new Set<number>();
  while (picked.size < NUMBER_CHOICES) picked.add(NUMBER_MIN + rand(span));
  const numbers = [...picked];
  const number = numbers[0]!;
  for (let i = numbers.length - 1; i > 0; i--) {
    const j = rand(i + 1);
    [numbers[i], numbers[j]] = [numbers[j]!, numbers[i]!];
  }
  return { number, numbers };
}
