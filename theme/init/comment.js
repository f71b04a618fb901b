// The pull request comment of the visual workflow `theme init` writes (theme/init/files.py):
// actions/github-script runs it as the body of an async function (github, context, require).
// One comment per pull request, found by its marker and updated on every run.
const fs = require("fs");
const marker = "<!-- theme visual report -->";
const summary = fs.existsSync("visual-report/summary.md")
  ? fs.readFileSync("visual-report/summary.md", "utf8")
  : "## Visual check\n\nThe checks failed before a report was written; see the run's log.\n";
const link = process.env.REPORT_URL
  ? `[Download the review report](${process.env.REPORT_URL}), unzip it and open \`index.html\`.`
  : "The review report is attached to this run as the `visual-report` artefact.";
const pages = process.env.ARTIFACTS_URL
  ? `Should \`theme accept\` ask for a page's full-size image (its baseline changed since this run), [download them](${process.env.ARTIFACTS_URL}) and pass \`--artifacts\` with their folder.`
  : "";
const body = `${marker}\n${summary.slice(0, 60000)}\n${link}\n${pages}\n`;
const { owner, repo } = context.repo;
const issue_number = context.payload.pull_request.number;
const comments = await github.paginate(github.rest.issues.listComments, { owner, repo, issue_number, per_page: 100 });
const mine = comments.find(c => c.user.type === "Bot" && c.body.startsWith(marker));
if (mine) {
  await github.rest.issues.updateComment({ owner, repo, comment_id: mine.id, body });
} else {
  await github.rest.issues.createComment({ owner, repo, issue_number, body });
}
