from ginrummy_bot.cli import main

main()
