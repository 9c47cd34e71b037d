;;; emacs_steps.el --- a user's session in Emacs with eglot and docs/editors.md's recipe  -*- lexical-binding: t -*-
;; Run in batch after the recipe (tests/editors/test_emacs.py); records what Emacs shows
;; in $KARYI_TEST_OUT as JSON. Every wait polls a state with a deadline, letting Emacs
;; read the server's messages and run its timers (auto-revert) in between.
(require 'json)
(require 'subr-x)

(defvar karyi-test-out nil)
(defvar karyi-test-messages nil)
(defvar karyi-test-prompts nil)
(defvar karyi-test-offered nil)
(defvar karyi-test-pick nil)
(defvar karyi-test-confirms nil)
(defconst karyi-test-root (getenv "KARYI_TEST_ROOT"))

(defconst karyi-test-patience (string-to-number (or (getenv "KARYI_TEST_PATIENCE") "180"))
  "Seconds a step waits for what it expects before it fails.")

(defun karyi-test-events ()
  "The end of eglot's events buffer: what the server and Emacs said last."
  (let ((server (eglot-current-server)))
    (if (not server)
        "(no server)"
      (with-current-buffer (jsonrpc-events-buffer server)
        (buffer-substring-no-properties (max (point-min) (- (point-max) 3000)) (point-max))))))

(defun karyi-test-wait (what pred)
  "Wait until PRED holds, at most `karyi-test-patience' seconds; fail naming WHAT."
  (let ((deadline (+ (float-time) karyi-test-patience)))
    (while (not (funcall pred))
      (when (> (float-time) deadline)
        (error "Timed out waiting for %s; the last messages with the server:\n%s" what
               (karyi-test-events)))
      (accept-process-output nil 0.05))))

(defun karyi-test-said (text)
  (seq-some (lambda (m) (string-search text m)) karyi-test-messages))

(advice-add 'message :after
            (lambda (format-string &rest args)
              (when format-string
                (push (apply #'format-message format-string args) karyi-test-messages))))

;; The user's answers: Emacs asks through `completing-read' (vertico, ivy … replace it
;; the same way): permission questions get "Allow", code action menus `karyi-test-pick'.
(setq completing-read-function
      (lambda (prompt collection &rest _)
        (let ((choices (all-completions "" collection)))
          (if (string-prefix-p "[eglot] Pick an action" prompt)
              (progn (setq karyi-test-offered choices) karyi-test-pick)
            (push (list (cons 'prompt (substring-no-properties prompt))
                        (cons 'items (vconcat choices)))
                  karyi-test-prompts)
            "Allow"))))
(fset 'y-or-n-p (lambda (prompt) (push prompt karyi-test-confirms) t))

(defvar karyi-test-updates nil "The types of the `karyi/turnUpdate' events seen.")
(cl-defmethod eglot-handle-notification
  (_server (_method (eql karyi/turnUpdate)) &key event &allow-other-keys)
  (push (plist-get event :type) karyi-test-updates))

(defun karyi-test-file (name)
  (with-temp-buffer
    (insert-file-contents (expand-file-name name karyi-test-root))
    (buffer-string)))

(defun karyi-test-step (name fn)
  "Run FN with a fresh record, kept under NAME; an error is recorded, not raised."
  (let ((record (list (cons 'ran t))))
    (condition-case err
        (setq record (append (funcall fn) record))
      (error (push (cons 'error (error-message-string err)) record)))
    (push (cons name record) karyi-test-out)))

(defun karyi-test-execute (command arguments)
  "What the server answers to COMMAND with ARGUMENTS."
  (jsonrpc-request (eglot-current-server) :workspace/executeCommand
                   `(:command ,command :arguments ,arguments)))

(defvar karyi-test-calc nil)

(karyi-test-step
 'start
 (lambda ()
   (setq karyi-test-calc (find-file (expand-file-name "calc.py" karyi-test-root)))
   (run-hooks 'post-command-hook) ; eglot-ensure connects after the command that opened it
   (karyi-test-wait "eglot to connect to karyi" (lambda () (eglot-current-server)))
   (list (cons 'emacs emacs-version)
         (cons 'eglot (file-name-nondirectory
                       (directory-file-name (file-name-directory (locate-library "eglot"))))))))

(karyi-test-step
 'cancel
 (lambda ()
   (karyi "start something long")
   (karyi-test-wait "the model's first words" (lambda () (member "text" karyi-test-updates)))
   (let (result)
     (karyi-test-wait "a turn to cancel"
                      (lambda ()
                        (setq result (karyi-test-execute "karyi.cancel" []))
                        (> (length (plist-get result :cancelled)) 0)))
     (karyi-test-wait "the cancelled turn" (lambda () (karyi-test-said "Karyi stopped: cancelled")))
     (list (cons 'cancelled (plist-get result :cancelled))))))

(karyi-test-step
 'chat
 (lambda ()
   (karyi "bump both numbers")
   (karyi-test-wait "the answer" (lambda () (karyi-test-said "Bumped both.")))
   (karyi-test-wait "the buffer to show the file"
                    (lambda () (with-current-buffer karyi-test-calc
                                 (equal (buffer-string) (karyi-test-file "calc.py")))))
   (with-current-buffer karyi-test-calc
     (list (cons 'prompts (vconcat karyi-test-prompts))
           (cons 'buffer (buffer-string))
           (cons 'disk (karyi-test-file "calc.py"))
           (cons 'modified (if (buffer-modified-p) t :json-false))
           (cons 'in_step_with_disk (if (verify-visited-file-modtime) t :json-false))))))

(karyi-test-step
 'continue
 (lambda ()
   (karyi "what did you change?")
   (karyi-test-wait "the second answer" (lambda () (karyi-test-said "I changed calc.py.")))
   nil))

(karyi-test-step
 'fix
 (lambda ()
   (let ((bad (find-file (expand-file-name "bad.py" karyi-test-root))))
     (run-hooks 'post-command-hook)
     (karyi-test-wait "eglot to manage bad.py" (lambda () (bound-and-true-p eglot--managed-mode)))
     (let ((last-nonmenu-event ?a) (karyi-test-pick "Fix with Karyi"))
       (eglot-code-actions (point-min) (line-end-position) nil t))
     (karyi-test-wait "the fix" (lambda () (karyi-test-said "Marked the import.")))
     (karyi-test-wait "the buffer to show the fix"
                      (lambda () (with-current-buffer bad
                                   (equal (buffer-string) (karyi-test-file "bad.py")))))
     (with-current-buffer bad
       (list (cons 'offered (vconcat karyi-test-offered))
             (cons 'buffer (buffer-string))
             (cons 'disk (karyi-test-file "bad.py"))
             (cons 'modified (if (buffer-modified-p) t :json-false)))))))

(karyi-test-step
 'selection
 (lambda ()
   (set-buffer karyi-test-calc)
   (let ((last-nonmenu-event ?a) (karyi-test-pick "Ask Karyi to explain this"))
     (goto-char (point-min))
     (eglot-code-actions (point-min) (line-end-position 2) nil t))
   (karyi-test-wait "the explanation" (lambda () (karyi-test-said "It returns 10.")))
   (list (cons 'offered (vconcat karyi-test-offered)))))

(karyi-test-step
 'unsaved
 (lambda ()
   (set-buffer karyi-test-calc)
   (goto-char (point-min))
   (insert "# mine\n")
   (let ((disk-before (karyi-test-file "calc.py")))
     (karyi "make two return 21")
     (karyi-test-wait "the edit of the unsaved buffer" (lambda () (karyi-test-said "Done.")))
     (let ((record (list (cons 'buffer (buffer-string))
                         (cons 'disk (karyi-test-file "calc.py"))
                         (cons 'disk_before disk-before)
                         (cons 'confirms (vconcat karyi-test-confirms))
                         (cons 'modified (if (buffer-modified-p) t :json-false)))))
       (save-buffer)
       (cons (cons 'disk_after_save (karyi-test-file "calc.py")) record)))))

(with-temp-file (getenv "KARYI_TEST_OUT")
  (insert (json-encode (cons (cons 'messages (vconcat (reverse karyi-test-messages)))
                             karyi-test-out))))
(kill-emacs 0)
