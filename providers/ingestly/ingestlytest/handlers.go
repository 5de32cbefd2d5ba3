package ingestlytest

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/jobpoll/poll/internal/fakeapi"
	"github.com/jobpoll/poll/providers/ingestly"
)

// maxUpload bounds a trigger's multipart form held in memory.
const maxUpload = 32 << 20

type answerKey struct{ workflowID, key string }

// answer is a stored trigger answer, replayed for the same key.
type answer struct {
	status int
	body   []byte
}

func (a answer) write(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(a.status)
	_, _ = w.Write(a.body)
}

// triggerAnswer is the trigger's JSON, with a null runId when held.
type triggerAnswer struct {
	DocumentID string  `json:"documentId"`
	RunID      *string `json:"runId"`
	Status     string  `json:"status"`
	Reference  string  `json:"reference"`
}

// handleTrigger stores the document and starts its run. The docs do not
// give the success status; the fake answers 202 Accepted, since the run
// goes on after the answer.
func (s *Server) handleTrigger(w http.ResponseWriter, r *http.Request) {
	workflowID := r.PathValue("workflowId")
	key := r.Header.Get("Idempotency-Key")
	s.mu.Lock()
	stored, replay := s.answers[answerKey{workflowID, key}]
	sc, known := s.workflows[workflowID]
	s.mu.Unlock()
	switch {
	case replay && key != "":
		stored.write(w)
		return
	case !known:
		s.Error(w, http.StatusNotFound, fmt.Sprintf("workflow %q not found", workflowID))
		return
	}

	if err := r.ParseMultipartForm(maxUpload); err != nil {
		s.Error(w, http.StatusBadRequest, "the body must be multipart/form-data: "+err.Error())
		return
	}
	file, header, err := r.FormFile("file")
	if err != nil {
		s.Error(w, http.StatusBadRequest, "the form has no file field")
		return
	}
	content, err := io.ReadAll(file)
	_ = file.Close()
	if err != nil {
		s.Error(w, http.StatusBadRequest, "reading the file: "+err.Error())
		return
	}
	reference := r.FormValue("reference")

	s.mu.Lock()
	// A request with the same key may have been stored meanwhile.
	if stored, ok := s.answers[answerKey{workflowID, key}]; ok && key != "" {
		s.mu.Unlock()
		stored.write(w)
		return
	}
	doc, resp := s.submit(workflowID, reference, sc, time.Now())
	s.uploads = append(s.uploads, Upload{
		WorkflowID: workflowID, DocumentID: doc.id, IdempotencyKey: key,
		Filename: header.Filename, ContentType: header.Header.Get("Content-Type"),
		Content: content, Reference: reference,
	})
	out := triggerAnswer{DocumentID: resp.DocumentID, Status: resp.Status, Reference: resp.Reference}
	if resp.RunID != "" {
		out.RunID = &resp.RunID
	}
	body, _ := json.Marshal(out)
	a := answer{status: http.StatusAccepted, body: append(body, '\n')}
	if key != "" {
		s.answers[answerKey{workflowID, key}] = a
	}
	s.mu.Unlock()
	a.write(w)
}

func (s *Server) handleRun(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("runId")
	now := time.Now()
	s.mu.Lock()
	rn, ok := s.runs[id]
	if !ok || !s.reveal(rn, now, true) {
		s.mu.Unlock()
		s.Error(w, http.StatusNotFound, fmt.Sprintf("run %q not found", id))
		return
	}
	s.poll(rn, now)
	view := rn.view()
	s.mu.Unlock()
	fakeapi.JSON(w, http.StatusOK, view)
}

func (s *Server) handleRunOutput(w http.ResponseWriter, r *http.Request) {
	id, nodeID := r.PathValue("runId"), r.URL.Query().Get("nodeId")
	s.mu.Lock()
	rn, ok := s.runs[id]
	if !ok || !s.reveal(rn, time.Now(), false) {
		s.mu.Unlock()
		s.Error(w, http.StatusNotFound, fmt.Sprintf("run %q not found", id))
		return
	}
	status, outputs := rn.status(), rn.script.Outputs
	s.mu.Unlock()

	if !strings.EqualFold(status, ingestly.RunCompleted) {
		s.Error(w, http.StatusConflict, fmt.Sprintf("run %q is %s, not completed", id, status))
		return
	}
	if len(outputs) == 0 {
		s.Error(w, http.StatusConflict, fmt.Sprintf("run %q captured no output", id))
		return
	}
	out := outputs[len(outputs)-1]
	if nodeID != "" {
		found := false
		for _, o := range outputs {
			if o.NodeID == nodeID {
				out, found = o, true
			}
		}
		if !found {
			s.Error(w, http.StatusNotFound, fmt.Sprintf("node %q is not a node of the graph run %q executed", nodeID, id))
			return
		}
	}
	if out.TooLarge {
		s.Error(w, http.StatusRequestEntityTooLarge, "the output exceeds the 10 MB that can be returned inline; download it from the run in the dashboard")
		return
	}
	if size := out.size(); size > MaxInlineOutput {
		s.Error(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("the output is %d bytes, over the 10 MB that can be returned inline; download it from the run in the dashboard", size))
		return
	}
	view, err := render(out)
	if err != nil {
		s.Error(w, http.StatusInternalServerError, "ingestlytest: the scripted output does not encode: "+err.Error())
		return
	}
	fakeapi.JSON(w, http.StatusOK, view)
}

// size is the output's size as a file, before any encoding.
func (o Output) size() int {
	switch {
	case o.Binary != nil:
		return len(o.Binary)
	case o.JSON != nil:
		b, _ := json.Marshal(o.JSON)
		return len(b)
	}
	return len(o.Text)
}

// render serves an output as Ingestly does: JSON as a value, text as a
// string, binary as a base64 string.
func render(o Output) (ingestly.RunOutput, error) {
	view := ingestly.RunOutput{ContentType: o.ContentType, Filename: o.Filename}
	defaults := func(contentType, filename string) {
		if view.ContentType == "" {
			view.ContentType = contentType
		}
		if view.Filename == "" {
			view.Filename = filename
		}
	}
	var value any
	switch {
	case o.Binary != nil:
		defaults("application/octet-stream", "output.bin")
		view.IsBase64, value = true, base64.StdEncoding.EncodeToString(o.Binary)
	case o.JSON != nil:
		defaults("application/json", "output.json")
		value = o.JSON
	default:
		defaults("text/plain", "output.txt")
		value = o.Text
	}
	var err error
	view.Output, err = json.Marshal(value)
	return view, err
}

func (s *Server) handleDocument(w http.ResponseWriter, r *http.Request) {
	s.withDocument(w, r, true, func(doc *document) any {
		return ingestly.Document{ID: doc.id, Status: s.documentStatus(doc), Reference: doc.reference, WorkflowID: doc.workflowID}
	})
}

// runList is the {count, pages, data} envelope of Ingestly's lists.
type runList struct {
	Count int            `json:"count"`
	Pages int            `json:"pages"`
	Data  []ingestly.Run `json:"data"`
}

// handleDocumentRuns lists the document's runs, newest first, in the
// envelope of Ingestly's other lists (the docs do not print this one), on
// one page.
func (s *Server) handleDocumentRuns(w http.ResponseWriter, r *http.Request) {
	s.withDocument(w, r, false, func(doc *document) any {
		list := runList{Data: []ingestly.Run{}}
		if rn := s.runs[doc.runID]; rn != nil && rn.visible {
			list.Data = append(list.Data, rn.view())
			list.Count, list.Pages = 1, 1
		}
		return list
	})
}

// handleOriginalFile answers a link valid for 5 minutes. The link's host
// is not served: it stands for Ingestly's file storage.
func (s *Server) handleOriginalFile(w http.ResponseWriter, r *http.Request) {
	s.withDocument(w, r, false, func(doc *document) any {
		expires := time.Now().UTC().Add(5 * time.Minute).Truncate(time.Second)
		return ingestly.OriginalFile{
			URL:       fmt.Sprintf("https://files.ingestly.invalid/originals/%s?expires=%d", doc.id, expires.Unix()),
			ExpiresOn: expires,
		}
	})
}

// withDocument answers view(doc), or 404 for an unknown document.
func (s *Server) withDocument(w http.ResponseWriter, r *http.Request, countRead bool, view func(*document) any) {
	id := r.PathValue("documentId")
	s.mu.Lock()
	doc, ok := s.documents[id]
	if !ok {
		s.mu.Unlock()
		s.Error(w, http.StatusNotFound, fmt.Sprintf("document %q not found", id))
		return
	}
	s.readDocument(doc, time.Now(), countRead)
	v := view(doc)
	s.mu.Unlock()
	fakeapi.JSON(w, http.StatusOK, v)
}

// reviewTaskPage is the envelope of GET /review-tasks.
type reviewTaskPage struct {
	Count int                   `json:"count"`
	Pages int                   `json:"pages"`
	Data  []ingestly.ReviewTask `json:"data"`
}

func (s *Server) handleReviewTasks(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	page, err := intParam(q.Get("page"), 1)
	if err != nil || page < 1 {
		s.Error(w, http.StatusBadRequest, fmt.Sprintf("page %q must be an integer of 1 or more", q.Get("page")))
		return
	}
	size, err := intParam(q.Get("pageSize"), 20)
	if err != nil || size < 1 || size > 100 {
		s.Error(w, http.StatusBadRequest, fmt.Sprintf("pageSize %q must be an integer from 1 to 100", q.Get("pageSize")))
		return
	}
	runID, status := q.Get("runId"), q.Get("status")

	now := time.Now()
	s.mu.Lock()
	for _, rn := range s.runs {
		s.reveal(rn, now, false)
	}
	var match []ingestly.ReviewTask
	for _, t := range s.tasks {
		if (runID == "" || t.RunID == runID) && (status == "" || t.Status == status) {
			match = append(match, t.ReviewTask)
		}
	}
	s.mu.Unlock()

	out := reviewTaskPage{Count: len(match), Pages: (len(match) + size - 1) / size, Data: []ingestly.ReviewTask{}}
	if from := (page - 1) * size; from < len(match) {
		out.Data = match[from:min(from+size, len(match))]
	}
	fakeapi.JSON(w, http.StatusOK, out)
}

func intParam(v string, def int) (int, error) {
	if v == "" {
		return def, nil
	}
	return strconv.Atoi(v)
}
