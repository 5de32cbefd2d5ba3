package main

import (
	"fmt"
	"strings"
)

// keysHelp says where keys come from, in every help text.
const keysHelp = `API keys come from the environment, never from a flag (a flag would show in
ps and in the shell history):
  NARADA_API_KEY     for narada
  DOCUMIND_API_KEY   for documind
  INGESTLY_API_KEY   for ingestly
or from a file with --key-file FILE.
`

// outputHelp says what goes where, in every help text.
const outputHelp = `Output: progress goes to stderr (a live line on a terminal, plain lines in a
CI log), the result to stdout, so $(jobpoll ...) captures the result alone.
Without --json, stdout gets the result only when the job succeeded; with
--json it gets the last observation however the wait ended.
`

// topHelp is "jobpoll help": what the command is for, every command, a
// few examples, the flags, the keys and the exit statuses.
func topHelp() string {
	var b strings.Builder
	b.WriteString(`jobpoll waits for a job that runs in the background at Narada, Documind or
Ingestly, shows its progress, prints its result and exits with a status that
says how it ended: a script or a CI pipeline can wait for a job without a
curl-and-sleep loop. It gives up at a deadline, polls on a schedule tuned for
each kind of job, retries what is worth retrying (429, 5xx, network errors)
and stops at once on what is not (a wrong key, an unknown id).

Usage:
`)
	for _, c := range commands {
		fmt.Fprintf(&b, "  %s\n      %s\n", c.usage(), c.summary)
	}
	b.WriteString(`  jobpoll help [command]
      the details of a command (or add -h to it)

Examples:
  export NARADA_API_KEY=...
  jobpoll wait narada req_abc123def456
  answer=$(jobpoll run narada --prompt "/Operator find the cheapest flight to Oslo" --window "$WINDOW")

  export DOCUMIND_API_KEY=...
  jobpoll wait documind review 550e8400-e29b-41d4-a716-446655440000 --timeout 1h > fields.json

  export INGESTLY_API_KEY=...
  jobpoll trigger ingestly --workflow invoices --file po-1182.pdf > result.json
  jobpoll wait ingestly run "$RUN_ID" --document "$DOCUMENT_ID" --json | jq .run.status

`)
	b.WriteString(commonFlagsHelp + "\n" + keysHelp + "\n" + outputHelp + "\n" + exitTable)
	return b.String()
}

// usage is the command's usage line.
func (c *command) usage() string {
	line := "jobpoll " + c.path
	if c.args != "" {
		line += " " + c.args
	}
	return line + " [flags]"
}

// fullHelp is the command's help: usage, what it does, its defaults and
// flags, examples, then what every command shares.
func (c *command) fullHelp() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Usage: %s\n\n%s\n", c.usage(), strings.TrimSpace(c.help))
	d := c.defaults
	line := fmt.Sprintf("Defaults: timeout %s; %s", human(d.timeout), d.polling)
	if d.stall > 0 {
		line += fmt.Sprintf("; stall timeout %s", human(d.stall))
	}
	b.WriteString("\n" + wrap(line+".", 76) + "\n")
	b.WriteString(commonFlagsHelp + "\n" + keysHelp + "\n" + outputHelp + "\n" + exitTable)
	return b.String()
}

// wrap breaks text into lines of at most width columns, between words.
func wrap(text string, width int) string {
	var b strings.Builder
	n := 0
	for _, w := range strings.Fields(text) {
		switch {
		case n == 0:
		case n+1+len(w) > width:
			b.WriteByte('\n')
			n = 0
		default:
			b.WriteByte(' ')
			n++
		}
		b.WriteString(w)
		n += len(w)
	}
	b.WriteByte('\n')
	return b.String()
}
