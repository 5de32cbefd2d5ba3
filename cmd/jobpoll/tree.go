package main

import (
	"flag"
	"fmt"
	"strings"
)

// commands are every command, in the order the help lists them.
var commands = []*command{
	waitNaradaCmd,
	waitReviewCmd,
	waitBatchCmd,
	waitRunCmd,
	runNaradaCmd,
	triggerIngestlyCmd,
}

// node is a word of the command tree: "wait", "wait documind", or a
// command.
type node struct {
	path     string // "" for the root
	next     string // what the following word names: "command", "provider"
	children []*node
	cmd      *command
}

// tree is built from commands: an inner node for every prefix of a path.
var tree = buildTree()

func buildTree() *node {
	root := &node{next: "command"}
	nextWords := map[int]string{0: "command", 1: "provider", 2: "job kind"}
	for _, c := range commands {
		n := root
		words := strings.Fields(c.path)
		for i, w := range words {
			child := n.child(w)
			if child == nil {
				child = &node{path: strings.Join(words[:i+1], " "), next: nextWords[i+1]}
				n.children = append(n.children, child)
			}
			n = child
		}
		n.cmd = c
	}
	return root
}

func (n *node) child(word string) *node {
	for _, c := range n.children {
		if c.word() == word {
			return c
		}
	}
	return nil
}

// word is the node's last word.
func (n *node) word() string {
	return n.path[strings.LastIndex(n.path, " ")+1:]
}

// route finds the command that args name and returns it with the
// arguments after its words. It stops at a help flag with flag.ErrHelp and
// the node reached; at a word it does not know, with an error naming the
// words it knows.
func route(args []string) (*node, []string, error) {
	n := tree
	for i := 0; n.cmd == nil; i++ {
		if i == len(args) {
			return n, nil, fmt.Errorf("%s: missing the %s (%s)", n.name(), n.next, n.choices())
		}
		arg := args[i]
		switch arg {
		case "-h", "-help", "--help", "help":
			return n, nil, flag.ErrHelp
		}
		child := n.child(arg)
		if child == nil {
			if strings.HasPrefix(arg, "-") {
				return n, nil, fmt.Errorf("%s: flags go after the command, e.g. jobpoll wait narada <requestId> %s; first the %s (%s)", n.name(), arg, n.next, n.choices())
			}
			return n, nil, fmt.Errorf("%s: unknown %s %q; choose %s", n.name(), n.next, arg, n.choices())
		}
		n = child
		if n.cmd != nil {
			return n, args[i+1:], nil
		}
	}
	return n, args, nil
}

// name is "jobpoll" and the node's words.
func (n *node) name() string {
	return strings.TrimSpace("jobpoll " + n.path)
}

// choices lists the words that may follow: "narada, documind or ingestly".
func (n *node) choices() string {
	words := make([]string, len(n.children))
	for i, c := range n.children {
		words[i] = c.word()
	}
	if len(words) == 1 {
		return words[0]
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}

// help is the node's help: a command's full help, or the list of the
// commands under an inner node.
func (n *node) help() string {
	if n.cmd != nil {
		return n.cmd.fullHelp()
	}
	if n == tree {
		return topHelp()
	}
	var b strings.Builder
	b.WriteString("Usage:\n")
	for _, c := range commands {
		if strings.HasPrefix(c.path+" ", n.path+" ") {
			fmt.Fprintf(&b, "  %s\n      %s\n", c.usage(), c.summary)
		}
	}
	fmt.Fprintf(&b, "\nRun 'jobpoll help %s <%s>' for the details of one, or 'jobpoll help' for the overview.\n", n.path, n.next)
	return b.String()
}
