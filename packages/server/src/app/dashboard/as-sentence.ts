/**
 * A service message shown to a person as a sentence: the stores and the JSON API word their
 * messages in lower case without a full stop (`password must be at least 8 characters long`);
 * the dashboard's notices start with a capital and end with one. Only for messages that start
 * with a word of the message itself, never with a name the user typed (a policy path, a domain).
 */
export function asSentence(message: string): string {
  const text = /^[a-z]/.test(message) ? message.charAt(0).toUpperCase() + message.slice(1) : message
  return /[.!?]$/.test(text) ? text : `${text}.`
}

/** A password refusal about the new password of a change: "The new password must …". */
export function newPasswordSentence(problem: string): string {
  return asSentence(problem.startsWith('password ') ? `the new ${problem}` : problem)
}
