exec(open("/tmp/t/helpers.py").read())
MODELS=(307,"","text/plain","Location: http://localhost:45529/v1/models\r\n")
CHAT=[("raw","307 Temporary Redirect","","text/plain","Location: http://localhost:45529/v1/chat/completions\r\n")]
