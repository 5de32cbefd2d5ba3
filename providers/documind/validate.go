package documind

import (
	"errors"
	"fmt"

	"github.com/google/uuid"
)

// ErrInvalidInput matches, with errors.Is, every error for input the client
// refuses before sending anything: an id that is not a UUID, an empty
// batch, a negative page bound.
var ErrInvalidInput = errors.New("documind: invalid input")

// inputError is a client-side refusal; its text names the bad value.
type inputError struct{ msg string }

func (e *inputError) Error() string        { return e.msg + "; no request was sent" }
func (e *inputError) Is(target error) bool { return target == ErrInvalidInput }

func invalid(format string, args ...any) error {
	return &inputError{msg: "documind: " + fmt.Sprintf(format, args...)}
}

// checkUUID refuses an id that is not a UUID in its canonical 8-4-4-4-12
// form, which is what Documind issues for documents, extractions and
// batches: an id that cannot exist costs no request, and it cannot smuggle
// a path or query into the URL.
func checkUUID(what, id string) error {
	if !isUUID(id) {
		return invalid("%s %q is not a UUID (want 8-4-4-4-12 hex digits, e.g. 550e8400-e29b-41d4-a716-446655440000)", what, clip(id))
	}
	return nil
}

// isUUID accepts only the canonical form: uuid.Parse alone also takes
// the urn:uuid:, braced and hyphenless ones, which Documind does not issue.
func isUUID(s string) bool {
	_, err := uuid.Parse(s)
	return err == nil && len(s) == 36
}

// clip keeps an error text short when the bad value is huge.
func clip(s string) string {
	const most = 64
	if len(s) <= most {
		return s
	}
	return s[:most] + "…"
}
