package ingestlytest

import (
	"encoding/json"
	"net/http"
	"strings"
)

// ProblemType is the problem "type" the fake sends with an error status,
// e.g. "https://api.ingestly.ai/problems/not-found". The docs do not list
// Ingestly's type URIs; these are the fake's own, one per status.
func ProblemType(status int) string {
	return "https://api.ingestly.ai/problems/" + strings.ReplaceAll(strings.ToLower(problemTitle(status)), " ", "-")
}

// problemTitle is the status text, in the docs' wording for 413.
func problemTitle(status int) string {
	if status == http.StatusRequestEntityTooLarge {
		return "Content Too Large"
	}
	if text := http.StatusText(status); text != "" {
		return text
	}
	return "Error"
}

// problemBody renders an RFC 7807 problem, Ingestly's error shape.
func problemBody(status int, detail string) (string, []byte) {
	body, _ := json.Marshal(map[string]any{
		"type":   ProblemType(status),
		"title":  problemTitle(status),
		"status": status,
		"detail": detail,
	})
	return "application/problem+json", body
}
