"""Intake rules: which turns a project's queue takes, evaluated as turns and feedback arrive
(issue 27, item 4). A project with none takes every turn, as before there were rules."""
