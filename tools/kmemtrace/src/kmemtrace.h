/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmemtrace - the commands of the kmemtrace tool
 */
#ifndef __KMEMTRACE_H
#define __KMEMTRACE_H

/* Version of the "kmemtrace report" output format. */
#define KMT_REPORT_VERSION	1

/**
 * record_main() - "kmemtrace record": record a trace into a directory
 * @argc: number of arguments, including "record"
 * @argv: the arguments
 *
 * Return: the exit status of the command.
 */
int record_main(int argc, char **argv);

/**
 * report_main() - "kmemtrace report": summarize a recorded trace
 * @argc: number of arguments, including "report"
 * @argv: the arguments
 *
 * Return: the exit status of the command.
 */
int report_main(int argc, char **argv);

/**
 * check_main() - "kmemtrace check": validate recorded streams
 * @argc: number of arguments, including "check"
 * @argv: the arguments
 *
 * Return: the exit status of the command.
 */
int check_main(int argc, char **argv);

/**
 * dump_main() - "kmemtrace dump": print every event as text
 * @argc: number of arguments, including "dump"
 * @argv: the arguments
 *
 * Return: the exit status of the command.
 */
int dump_main(int argc, char **argv);

/**
 * plot_main() - "kmemtrace plot": draw a recorded trace as SVG
 * @argc: number of arguments, including "plot"
 * @argv: the arguments
 *
 * Return: the exit status of the command.
 */
int plot_main(int argc, char **argv);

/**
 * pprof_main() - "kmemtrace pprof": write a recorded trace as a pprof profile
 * @argc: number of arguments, including "pprof"
 * @argv: the arguments
 *
 * Return: the exit status of the command.
 */
int pprof_main(int argc, char **argv);

/**
 * ctf_main() - "kmemtrace ctf": make a recording readable as a CTF trace
 * @argc: number of arguments, including "ctf"
 * @argv: the arguments
 *
 * Return: the exit status of the command.
 */
int ctf_main(int argc, char **argv);

#endif /* __KMEMTRACE_H */
